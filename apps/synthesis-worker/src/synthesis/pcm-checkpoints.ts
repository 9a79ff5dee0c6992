import type { Redis } from 'ioredis';
import { JOB_KEY_TTL_SECONDS } from '@platform/speech-jobs';

/**
 * The neural model's PCM of each piece, stored in Redis (`pcmCheckpointKey`) before the piece is
 * encoded, and reused when present. The model draws noise that cannot be seeded, so a worker taking
 * over a job could not render the pieces already sent again; with their PCM it encodes them again
 * byte for byte and goes on (resume.ts). About 44 KB per second of audio, for the job's lifetime.
 *
 * Pieces are stored by their index in the job (`synthesizeToStream` gives it: a takeover asks for
 * the piece lost with the dead worker before the ones it repeats).
 */
export function checkpointedPcm(
  redis: Redis,
  key: string,
  render: (piece: string) => Promise<Int16Array>,
): (piece: string, pieceIndex: number) => Promise<Int16Array> {
  return async (piece, pieceIndex) => {
    const index = String(pieceIndex);
    const stored = await redis.hgetBuffer(key, index);
    if (stored) {
      // A copy: Int16Array needs an even, aligned offset, which a Buffer from the pool may not have.
      const samples = new Int16Array(stored.length >> 1);
      Buffer.from(samples.buffer).set(stored.subarray(0, samples.byteLength));
      return samples;
    }
    const pcm = await render(piece);
    await redis
      .multi()
      .hset(key, index, Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength))
      .expire(key, JOB_KEY_TTL_SECONDS)
      .exec();
    return pcm;
  };
}
