import type { Resampler } from '../resample';
import type { AudioEncoder } from './codec';

/**
 * An encoder done here, sample by sample (linear PCM, G.711): `encode` turns resampled samples
 * into bytes; `header`, if any, goes before the first of them (or alone, for a job without audio).
 */
export function sampleEncoder(
  encode: (samples: Int16Array) => Buffer,
  resampler: Resampler,
  onData: (bytes: Buffer) => void,
  header: Buffer | null = null,
): AudioEncoder {
  let pending = header;
  const emit = (samples: Int16Array) => {
    if (samples.length === 0) return;
    const bytes = encode(samples);
    onData(pending ? Buffer.concat([pending, bytes]) : bytes);
    pending = null;
  };
  let aborted = false;
  return {
    write: (pcm) => {
      if (!aborted) emit(resampler.push(pcm));
    },
    end: async () => {
      if (aborted) return;
      emit(resampler.end());
      if (pending) onData(pending); // no audio at all: still a valid, empty stream
    },
    abort: () => {
      aborted = true;
    },
  };
}

/** 16-bit little-endian samples as bytes (a copy: the encoder reuses nothing it hands out). */
export function linear16(samples: Int16Array): Buffer {
  return Buffer.from(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
}
