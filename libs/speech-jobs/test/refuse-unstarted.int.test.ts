import type { Redis } from 'ioredis';
import { connectRedis } from '@platform/stores';
import { stackEnv, uniqueName } from '@platform/testing';
import { claimJob, endJob, refuseUnstartedJob } from '../src';

/**
 * The gateway's wait bound against a worker's start: the job's owner key decides which came first,
 * so a job is either refused (and never runs) or runs (and is never refused), never both.
 */
let redis: Redis;
const prefix = uniqueName('refuse');
beforeAll(async () => {
  redis = await connectRedis(stackEnv().REDIS_URL);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe('refusing a job no worker has started', () => {
  it('refused first: a worker that takes the job afterwards is told so and does not own it', async () => {
    expect(await refuseUnstartedJob(redis, prefix, 'job-refused-1')).toBe(true);
    const claim = await claimJob(redis, prefix, 'job-refused-1', 'host:1#0');
    expect(claim).toMatchObject({ ended: true, refused: true, nextSeq: 0 });
    // The worker owns nothing: it cannot end (and so record) the job either.
    expect(
      await endJob(redis, { keyPrefix: prefix, jobId: 'job-refused-1', deadlineAt: Date.now() + 1000 }, 'host:1#0'),
    ).toBe(false);
  });

  it('claimed first: the refusal fails and the worker keeps the job', async () => {
    const claim = await claimJob(redis, prefix, 'job-started-1', 'host:1#0');
    expect(claim.ended).toBeUndefined();
    expect(await refuseUnstartedJob(redis, prefix, 'job-started-1')).toBe(false);
    expect(
      await endJob(redis, { keyPrefix: prefix, jobId: 'job-started-1', deadlineAt: Date.now() + 1000 }, 'host:1#0'),
    ).toBe(true);
    // Ended (its client may have been told everything): still not refusable.
    expect(await refuseUnstartedJob(redis, prefix, 'job-started-1')).toBe(false);
  });

  it('at the same moment, exactly one of the two wins, every time', async () => {
    for (let i = 0; i < 50; i++) {
      const jobId = `job-race-${i}`;
      const [refused, claim] = await Promise.all([
        refuseUnstartedJob(redis, prefix, jobId),
        claimJob(redis, prefix, jobId, 'host:2#0'),
      ]);
      expect(refused).toBe(claim.refused === true);
    }
  });
});
