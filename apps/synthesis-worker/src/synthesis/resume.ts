/**
 * Taking over a job whose worker died. The new attempt synthesises the job again from its first
 * piece: eSpeak NG, the resampler and the MP3/PCM/WAV/G.711/Opus encoders are deterministic (Ogg
 * Opus once its pages get the first stream's serial number, codecs/ogg-serial.ts of @platform/speech-engine), and the neural model's
 * pieces already rendered are reused (pcm-checkpoints.ts), so the same job gives the same bytes
 * (checked below, byte for byte, never assumed). The bytes the stream
 * already holds are dropped instead of written; the first byte the dead worker did not write is
 * the first one this attempt writes. The encoder keeps its state across pieces (no click at
 * sentence joins), so its output can only be continued by running the same input through it again:
 * a fresh encoder started at a piece boundary would not continue the bytes already sent.
 */

/** The new attempt's audio differs from what the stream holds: it cannot continue it seamlessly. */
export class ResumeMismatchError extends Error {
  constructor(offset: number) {
    super(`the resumed synthesis differs from the audio already sent (at byte ${offset})`);
    this.name = 'ResumeMismatchError';
  }
}

/**
 * Passes through only what comes after `sent`: each chunk of the new attempt's audio is compared
 * with the bytes already sent at the same offset, and only bytes past the end of `sent` are
 * returned (an empty buffer while still inside it). Throws `ResumeMismatchError` on a difference.
 */
export function skipSentAudio(sent: Buffer): (chunk: Buffer) => Buffer {
  let offset = 0;
  return (chunk) => {
    const overlap = Math.max(0, Math.min(chunk.length, sent.length - offset));
    if (overlap > 0 && !chunk.subarray(0, overlap).equals(sent.subarray(offset, offset + overlap))) {
      throw new ResumeMismatchError(
        offset + firstDifference(chunk.subarray(0, overlap), sent.subarray(offset, offset + overlap)),
      );
    }
    offset += chunk.length;
    return chunk.subarray(overlap);
  };
}

function firstDifference(a: Buffer, b: Buffer): number {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}
