import type { Redis } from 'ioredis';
import { connectRedis } from '@platform/stores';
import { eventually, stackEnv, uniqueName } from '@platform/testing';
import {
  FrameTimeoutError,
  SupersededError,
  audioStreamKey,
  claimJob,
  createBlockingPool,
  endJob,
  createFrameWriter,
  encodeFrame,
  ownerKey,
  readFrames,
  type ChunkFrame,
} from '../src';

let redis: Redis;
const prefix = uniqueName('frames');
beforeAll(async () => {
  redis = await connectRedis(stackEnv().REDIS_URL);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** Reads until the stream's last frame; the idle timeout only turns a lost frame into a failure. */
async function collect(conn: Redis, key: string, idleTimeoutMs = 15_000): Promise<ChunkFrame[]> {
  const out: ChunkFrame[] = [];
  for await (const frame of readFrames(conn, key, { idleTimeoutMs, blockMs: 100 })) out.push(frame);
  return out;
}

describe('frames on a Redis stream', () => {
  it('a reader that starts after the writer still gets every frame, in order, with a TTL on the key', async () => {
    const key = `${prefix}:late`;
    const writer = createFrameWriter(redis, key);
    await writer.append({ type: 'audio', data: Buffer.from([1, 2, 3]) });
    await writer.append({ type: 'audio', data: Buffer.from([4]) });
    await writer.append({ type: 'end', characters: 3, durationSeconds: 0.1, pieces: 1, contentType: 'audio/mpeg' });
    expect(await redis.ttl(key)).toBeGreaterThan(0);
    const pool = createBlockingPool(redis);
    const conn = await pool.acquire();
    const frames = await collect(conn, key);
    pool.release(conn);
    await pool.close();
    expect(frames.map((f) => [f.seq, f.type])).toEqual([
      [0, 'audio'],
      [1, 'audio'],
      [2, 'end'],
    ]);
  });

  it('a reader waiting before the writer gets frames as they come', async () => {
    const key = `${prefix}:early`;
    const conn = redis.duplicate();
    const id = (await conn.client('ID')) as number;
    const reading = collect(conn, key);
    const writer = createFrameWriter(redis, key);
    // The reader is waiting once Redis shows its connection blocked (flags=b) in XREAD.
    await eventually(
      async () => /\bflags=\w*b\w*\b.*\bcmd=xread\b/.test(String(await redis.client('LIST', 'ID', String(id)))),
      10_000,
      10,
    );
    await writer.append({ type: 'audio', data: Buffer.from('abc') });
    await writer.append({ type: 'cancelled' });
    expect((await reading).map((f) => f.type)).toEqual(['audio', 'cancelled']);
    conn.disconnect();
  });

  it('duplicates are skipped and a gap ends the read with an error frame', async () => {
    const key = `${prefix}:gap`;
    await redis.xadd(key, '*', ...encodeFrame({ seq: 0, type: 'audio', data: Buffer.from('a') }));
    await redis.xadd(key, '*', ...encodeFrame({ seq: 0, type: 'audio', data: Buffer.from('a') }));
    await redis.xadd(key, '*', ...encodeFrame({ seq: 2, type: 'audio', data: Buffer.from('c') }));
    const conn = redis.duplicate();
    const frames = await collect(conn, key);
    conn.disconnect();
    expect(frames.map((f) => [f.seq, f.type])).toEqual([
      [0, 'audio'],
      [1, 'error'],
    ]);
  });

  it('silence longer than the idle timeout is a FrameTimeoutError', async () => {
    const conn = redis.duplicate();
    const started = Date.now();
    await expect(collect(conn, `${prefix}:silent`, 400)).rejects.toBeInstanceOf(FrameTimeoutError);
    // The 400 ms idle timeout is what ended it: not before it, and well before anything else could
    // (the margin is for a loaded machine).
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(Date.now() - started).toBeLessThan(400 + 5_000);
    conn.disconnect();
  });

  it('a job taken over: the new owner reads what was sent and goes on with the next number; the old owner can write nothing more', async () => {
    const jobId = uniqueName('takeover');
    const key = audioStreamKey(prefix, jobId);
    const owner = ownerKey(prefix, jobId);
    expect(await claimJob(redis, prefix, jobId, 'first#0')).toEqual({ nextSeq: 0, audio: Buffer.alloc(0), pieces: 0 });
    const first = createFrameWriter(redis, key, { owner: { key: owner, token: 'first#0' }, writer: 'host:1' });
    await first.append({ type: 'audio', data: Buffer.from('ab') });
    await first.append({ type: 'piece', index: 0, text: 'One.', durationSeconds: 0.5 });
    await first.append({ type: 'audio', data: Buffer.from('c') });

    const sent = await claimJob(redis, prefix, jobId, 'second#1');
    expect(sent).toEqual({ nextSeq: 3, audio: Buffer.from('abc'), pieces: 1, lastFrameAt: expect.any(Number) });
    await expect(first.append({ type: 'audio', data: Buffer.from('x') })).rejects.toBeInstanceOf(SupersededError);
    const second = createFrameWriter(redis, key, {
      owner: { key: owner, token: 'second#1' },
      firstSeq: sent.nextSeq,
      writer: 'host:2',
    });
    await second.append({ type: 'audio', data: Buffer.from('d') });
    await second.append({ type: 'end', characters: 4, durationSeconds: 0.5, pieces: 1, contentType: 'audio/mpeg' });
    expect(await redis.ttl(owner)).toBeGreaterThan(0);

    const conn = redis.duplicate();
    const frames = await collect(conn, key);
    conn.disconnect();
    expect(frames.map((f) => [f.seq, f.type])).toEqual([
      [0, 'audio'],
      [1, 'piece'],
      [2, 'audio'],
      [3, 'audio'],
      [4, 'end'],
    ]);
    const writers = (await redis.xrange(key, '-', '+')).map(([, fields]) => fields[fields.indexOf('w') + 1]);
    expect(writers).toEqual(['host:1', 'host:1', 'host:1', 'host:2', 'host:2']);
    // A later attempt sees the finished stream.
    expect((await claimJob(redis, prefix, jobId, 'third#2')).last).toMatchObject({ type: 'end', seq: 4 });
  });

  it('a job its owner ended is not claimed again, even once its stream is gone; only the owner ends it', async () => {
    const jobId = uniqueName('ended');
    const job = { keyPrefix: prefix, jobId, deadlineAt: Date.now() + 300_000 };
    const owner = ownerKey(prefix, jobId);
    await claimJob(redis, prefix, jobId, 'first#0');
    const first = createFrameWriter(redis, audioStreamKey(prefix, jobId), { owner: { key: owner, token: 'first#0' } });
    await first.append({ type: 'end', characters: 1, durationSeconds: 0.1, pieces: 1, contentType: 'audio/mpeg' });
    // An attempt that does not own the job cannot end it.
    expect(await endJob(redis, job, 'other#1')).toBe(false);
    expect(await redis.get(owner)).toBe('first#0');
    expect(await endJob(redis, job, 'first#0')).toBe(true);
    // The gateway read the stream and deleted it; the queue hands the job out again.
    await redis.del(audioStreamKey(prefix, jobId));
    expect(await claimJob(redis, prefix, jobId, 'second#1')).toEqual({
      nextSeq: 0,
      audio: Buffer.alloc(0),
      pieces: 0,
      ended: true,
    });
    // The mark stays (until the gateway's deadline here, later than the job keys' lifetime) and
    // is not replaced by the claim.
    expect(await redis.get(owner)).not.toBe('second#1');
    expect(await redis.pttl(owner)).toBeGreaterThan(200_000);
    expect(await endJob(redis, job, 'second#1')).toBe(false);
  });
});
