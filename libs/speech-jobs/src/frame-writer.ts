import type { Redis } from 'ioredis';
import { encodeFrame, type FrameBody, type ChunkFrame } from './frames';
import { JOB_KEY_TTL_SECONDS } from './naming';

/**
 * Appends a job's frames to its stream with consecutive sequence numbers. Each append also
 * renews the key's TTL, so a stream nobody reads (gateway gone) disappears by itself.
 */
export interface FrameWriter {
  append(body: FrameBody): Promise<void>;
  /** The sequence number the next frame gets (frames written so far, by every attempt). */
  readonly written: number;
}

export interface FrameWriterOptions {
  ttlSeconds?: number;
  /**
   * Append only while `key` holds `token` (the job's owner key, `ownerKey`): an attempt another
   * worker has taken over gets `SupersededError` instead of writing.
   */
  owner?: { key: string; token: string };
  /** The first frame's sequence number: a resumed job continues where the stream stops. */
  firstSeq?: number;
  /** Stored with every frame (field `w`): which worker process wrote it, for operators and tests. */
  writer?: string;
}

/** The attempt no longer owns the job's stream: another worker has taken the job over. */
export class SupersededError extends Error {
  constructor() {
    super('another worker has taken this synthesis job over');
    this.name = 'SupersededError';
  }
}

/** XADD and EXPIRE only while the owner key still names this attempt (one atomic step). */
const OWNED_APPEND = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('XADD', KEYS[1], '*', unpack(ARGV, 3))
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return 1`;

export function createFrameWriter(redis: Redis, key: string, options: FrameWriterOptions = {}): FrameWriter {
  const ttlSeconds = options.ttlSeconds ?? JOB_KEY_TTL_SECONDS;
  let seq = options.firstSeq ?? 0;
  return {
    async append(body) {
      const frame = { ...body, seq } as ChunkFrame;
      const fields = [...encodeFrame(frame), ...(options.writer ? ['w', options.writer] : [])];
      if (options.owner) {
        const appended = await redis.eval(
          OWNED_APPEND,
          2,
          key,
          options.owner.key,
          options.owner.token,
          String(ttlSeconds),
          ...fields,
        );
        if (appended !== 1) throw new SupersededError();
      } else {
        await redis
          .multi()
          .xadd(key, '*', ...fields)
          .expire(key, ttlSeconds)
          .exec();
      }
      seq++;
    },
    get written() {
      return seq;
    },
  };
}
