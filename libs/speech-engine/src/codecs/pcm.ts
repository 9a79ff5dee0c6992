import type { CodecDescriptor } from './codec';
import { linearFormats } from './linear-rates';
import { linear16, sampleEncoder } from './sample-encoder';

/** Raw signed 16-bit little-endian mono; the rate rides along as a media type parameter. */
export const pcm: CodecDescriptor = {
  name: 'pcm',
  formats: linearFormats('pcm', (rate) => `audio/pcm;rate=${rate}`),
  encoder: (_format, resampler, onData) => sampleEncoder(linear16, resampler, onData),
  bytesPerSecond: (format) => format.sampleRate * 2,
};
