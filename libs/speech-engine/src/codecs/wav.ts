import { completeWav, WAV_HEADER_BYTES, wavHeader } from '../wav';
import type { CodecDescriptor } from './codec';
import { linearFormats } from './linear-rates';
import { linear16, sampleEncoder } from './sample-encoder';

/**
 * The samples of `pcm_<rate>` behind a RIFF/WAVE header (../wav.ts), which carries the rate itself.
 * A stream's header says "size unknown"; the whole file gets its real sizes.
 */
export const wav: CodecDescriptor = {
  name: 'wav',
  formats: linearFormats('wav', () => 'audio/wav'),
  encoder: (format, resampler, onData) => sampleEncoder(linear16, resampler, onData, wavHeader(format.sampleRate)),
  bytesPerSecond: (format) => format.sampleRate * 2,
  streamHeaderBytes: WAV_HEADER_BYTES,
  completeFile: (format, audio) => completeWav(format.sampleRate, audio),
};
