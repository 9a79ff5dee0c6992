import { Redis } from 'ioredis';
import { stackEnv, uniqueName } from '@platform/testing';
import { createConcurrencyLimiter } from '../src/limits/concurrency';
import { createRateLimiter } from '../src/limits/rate-limiter';
import type { LimitSubject } from '../src/limits/plans';

let redis: Redis;

beforeAll(() => {
  redis = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  await redis.quit();
});

const subject = (concurrency: number, rps = 3): LimitSubject => ({ key: `acct:${uniqueName('a')}`, plan: 'free', limit: { rps, concurrency } });

describe('concurrency limiter (Redis leases)', () => {
  it('grants up to the limit, refuses the next, and frees a slot on release', async () => {
    const acquire = createConcurrencyLimiter(redis, { prefix: uniqueName('gwint') });
    const s = subject(2);
    const first = await acquire(s);
    const second = await acquire(s);
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(await acquire(s)).toBeNull();
    await first!.release();
    const third = await acquire(s);
    expect(third).not.toBeNull();
    await Promise.all([second!.release(), third!.release()]);
  });

  it('is shared by limiters built separately (as on two replicas)', async () => {
    const prefix = uniqueName('gwint');
    const replicaA = createConcurrencyLimiter(redis, { prefix });
    const replicaB = createConcurrencyLimiter(redis, { prefix });
    const s = subject(1);
    const held = await replicaA(s);
    expect(held).not.toBeNull();
    expect(await replicaB(s)).toBeNull();
    await held!.release();
    expect(await replicaB(s)).not.toBeNull();
  });

  it('lets the leases of a replica that died (stopped renewing, never released) expire', async () => {
    const prefix = uniqueName('gwint');
    const doomed = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    const dyingReplica = createConcurrencyLimiter(doomed, { prefix, leaseMs: 300 });
    const survivor = createConcurrencyLimiter(redis, { prefix, leaseMs: 300 });
    const s = subject(1);
    expect(await dyingReplica(s)).not.toBeNull();
    doomed.disconnect();
    expect(await survivor(s)).toBeNull();
    const started = Date.now();
    let next = await survivor(s);
    while (!next && Date.now() - started < 5_000) {
      await new Promise((r) => setTimeout(r, 50));
      next = await survivor(s);
    }
    expect(next).not.toBeNull();
    expect(Date.now() - started).toBeLessThan(2_000);
    await next!.release();
  });
});

describe('rate limiter (rate-limiter-flexible on Redis)', () => {
  it('admits rps requests per window and reports remaining, reset and retry-after', async () => {
    const consume = createRateLimiter(redis, uniqueName('gwint'));
    const s = subject(10, 3);
    const decisions = [];
    for (let i = 0; i < 5; i += 1) decisions.push(await consume(s));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
    const now = Math.floor(Date.now() / 1000);
    for (const d of decisions) {
      expect(d.limit).toBe(3);
      expect(d.resetUnix).toBeGreaterThanOrEqual(now);
      expect(d.resetUnix).toBeLessThanOrEqual(now + 2);
    }
    expect(decisions[4]!.retryAfter).toBe(1);
  });
});
