import { codecOf, type AudioEncoder, type EncoderOptions } from './codecs';
import { ENGINE_SAMPLE_RATE } from './espeak';
import type { OutputFormat } from './formats';
import { Resampler } from './resample';

export type { AudioEncoder, EncoderOptions } from './codecs';

/** A job's encoder for `format`: its codec's (codecs/), fed engine PCM resampled to the format's rate. */
export function createEncoder(
  format: OutputFormat,
  onData: (bytes: Buffer) => void,
  options: EncoderOptions = {},
): AudioEncoder {
  return codecOf(format).encoder(format, new Resampler(ENGINE_SAMPLE_RATE, format.sampleRate), onData, options);
}
