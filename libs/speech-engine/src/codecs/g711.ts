import { encodeAlaw } from '../alaw';
import { encodeUlaw } from '../ulaw';
import type { CodecDescriptor } from './codec';
import { sampleEncoder } from './sample-encoder';

/**
 * G.711 (telephony) at 8 kHz: one byte per sample, no header. `audio/basic` is μ-law by definition
 * (RFC 2046); A-law has no registered file type, `audio/x-alaw-basic` is the name in common use.
 */
const g711 = (
  name: 'ulaw' | 'alaw',
  encode: (samples: Int16Array) => Buffer,
  contentType: string,
): CodecDescriptor => ({
  name,
  formats: [{ id: `${name}_8000`, codec: name, sampleRate: 8000, contentType }],
  encoder: (_format, resampler, onData) => sampleEncoder(encode, resampler, onData),
  bytesPerSecond: (format) => format.sampleRate,
});

export const ulaw = g711('ulaw', encodeUlaw, 'audio/basic');
export const alaw = g711('alaw', encodeAlaw, 'audio/x-alaw-basic');
