import type { Redis } from 'ioredis';
import { encodeFrame, type FrameBody, type ChunkFrame } from './frames';
import { JOB_KEY_TTL_SECONDS } from './naming';

/**
 * Appends a job's frames to its stream with consecutive sequence numbers. Each append also
 * renews the key's TTL, so a stream nobody reads (gateway gone) disappears by itself.
 */
export interface FrameWriter {
  append(body: FrameBody): Promise<void>;
  readonly written: number;
}

export function createFrameWriter(redis: Redis, key: string, ttlSeconds = JOB_KEY_TTL_SECONDS): FrameWriter {
  let seq = 0;
  return {
    async append(body) {
      const frame = { ...body, seq: seq++ } as ChunkFrame;
      await redis
        .multi()
        .xadd(key, '*', ...encodeFrame(frame))
        .expire(key, ttlSeconds)
        .exec();
    },
    get written() {
      return seq;
    },
  };
}
