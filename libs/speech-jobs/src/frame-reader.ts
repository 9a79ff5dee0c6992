import type { Redis } from 'ioredis';
import { decodeFrame, isLastFrame, type ChunkFrame } from './frames';

export class FrameTimeoutError extends Error {
  constructor(idleMs: number) {
    super(`no audio from the synthesis worker for ${idleMs} ms`);
    this.name = 'FrameTimeoutError';
  }
}

export interface ReadFramesOptions {
  /** Give up when no frame arrives for this long (a dead worker, a lost job). */
  idleTimeoutMs: number;
  /** Stop reading (client gone). */
  signal?: AbortSignal;
  /** Longest single XREAD BLOCK; bounds how late an abort is noticed. */
  blockMs?: number;
}

type XReadReply = [Buffer, [Buffer, Buffer[]][]][] | null;

/**
 * Yields a job's frames in sequence order, from the beginning of its stream (so a reader that
 * starts after the worker cannot miss anything), until the end/error/cancelled frame. Duplicates
 * are skipped; a gap (lost frame) ends the read with an error frame. `redis` must be a connection
 * of its own: XREAD BLOCK holds it.
 */
export async function* readFrames(redis: Redis, key: string, options: ReadFramesOptions): AsyncGenerator<ChunkFrame> {
  let lastId = '0';
  let expected = 0;
  let lastActivity = Date.now();
  const blockMs = options.blockMs ?? 500;
  while (!options.signal?.aborted) {
    const idle = Date.now() - lastActivity;
    if (idle >= options.idleTimeoutMs) throw new FrameTimeoutError(options.idleTimeoutMs);
    const wait = Math.max(1, Math.min(blockMs, options.idleTimeoutMs - idle));
    const reply = (await redis.xreadBuffer('COUNT', 256, 'BLOCK', wait, 'STREAMS', key, lastId)) as XReadReply;
    if (!reply) continue;
    for (const [, entries] of reply) {
      for (const [id, fields] of entries) {
        lastId = id.toString();
        lastActivity = Date.now();
        const frame = decodeFrame(fields);
        if (frame.seq >= 0 && frame.seq < expected) continue;
        if (frame.seq !== expected) {
          yield { seq: expected, type: 'error', status: 'error', message: 'audio frames arrived out of sequence' };
          return;
        }
        expected++;
        yield frame;
        if (isLastFrame(frame)) return;
      }
    }
  }
}

/**
 * Blocking reads need their own connections. A small pool reuses them between jobs so a busy
 * gateway does not connect per request; idle ones beyond `maxIdle` are closed.
 */
export interface BlockingPool {
  acquire(): Promise<Redis>;
  release(conn: Redis, healthy?: boolean): void;
  close(): Promise<void>;
}

export function createBlockingPool(base: Redis, maxIdle = 16): BlockingPool {
  const idle: Redis[] = [];
  const all = new Set<Redis>();
  return {
    async acquire() {
      const reused = idle.pop();
      if (reused) return reused;
      const conn = base.duplicate({ lazyConnect: true, enableOfflineQueue: true, maxRetriesPerRequest: 2 });
      conn.on('error', () => undefined); // reported through the commands that fail
      all.add(conn);
      await conn.connect();
      return conn;
    },
    release(conn, healthy = true) {
      if (healthy && conn.status === 'ready' && idle.length < maxIdle) {
        idle.push(conn);
        return;
      }
      all.delete(conn);
      conn.disconnect();
    },
    async close() {
      idle.length = 0;
      await Promise.allSettled([...all].map((c) => c.quit()));
      all.clear();
    },
  };
}
