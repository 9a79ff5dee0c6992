import type { Redis } from 'ioredis';
import { resumesKey } from '@platform/speech-jobs';
import { connectRedis } from '@platform/stores';
import { stackEnv, uniqueName } from '@platform/testing';
import { takeoversWithoutProgress } from '../src/liveness/resume-budget';

/**
 * The resume limit's count (docs/decisions.md): takeovers in a row that found no new audio since
 * the attempt claimed before; a takeover that finds new audio starts it again, a hand-over is no death.
 */

let redis: Redis;
const keyPrefix = uniqueName('resume-budget');
beforeAll(async () => {
  redis = await connectRedis(stackEnv().REDIS_URL);
});
afterAll(async () => {
  const keys = await redis.keys(`${keyPrefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const job = () => ({ keyPrefix, jobId: uniqueName('job') });

it('counts deaths without new audio in a row, and starts again when a takeover finds new audio', async () => {
  const j = job();
  // The first attempt wrote audio and died.
  expect(await takeoversWithoutProgress(redis, j, { takeovers: 1, audioBytes: 1000 })).toBe(0);
  // The next two died before writing anything new.
  expect(await takeoversWithoutProgress(redis, j, { takeovers: 2, audioBytes: 1000 })).toBe(1);
  expect(await takeoversWithoutProgress(redis, j, { takeovers: 3, audioBytes: 1000 })).toBe(2);
  // The next one moved on before it died: the count starts again.
  expect(await takeoversWithoutProgress(redis, j, { takeovers: 4, audioBytes: 1500 })).toBe(0);
  expect(await redis.ttl(resumesKey(j.keyPrefix, j.jobId))).toBeGreaterThan(0);
});

it('counts a first attempt that died before any audio, and attempts that died before claiming', async () => {
  const j = job();
  expect(await takeoversWithoutProgress(redis, j, { takeovers: 1, audioBytes: 0 })).toBe(1);
  // Three deaths since the last claim, and new audio: the claimed attempt moved on, the two after it never claimed.
  expect(await takeoversWithoutProgress(redis, j, { takeovers: 4, audioBytes: 800 })).toBe(2);
});

it('a hand-over (no death) keeps the count, or clears it when the job moved on', async () => {
  const j = job();
  await takeoversWithoutProgress(redis, j, { takeovers: 1, audioBytes: 500 });
  expect(await takeoversWithoutProgress(redis, j, { takeovers: 2, audioBytes: 500 })).toBe(1);
  expect(await takeoversWithoutProgress(redis, j, { takeovers: 2, audioBytes: 500 })).toBe(1);
  expect(await takeoversWithoutProgress(redis, j, { takeovers: 2, audioBytes: 900 })).toBe(0);
});
