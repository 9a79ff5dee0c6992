import { Redis } from 'ioredis';
import { stackEnv, uniqueName } from '@platform/testing';
import { ANONYMOUS } from '../src/auth/authenticate';
import { createConcurrencyLimiter } from '../src/limits/concurrency';
import { createFailedCredentialBudget } from '../src/limits/failed-credentials';
import { createPlanLimiter } from '../src/limits/limit-middleware';
import { createRateLimiter } from '../src/limits/rate-limiter';
import { defaultPlanTable, planTableWithOverrides, type LimitSubject } from '../src/limits/plans';

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
    const { consume } = createRateLimiter(redis, uniqueName('gwint'));
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

  it('reads a window without counting: null while it has room, the refusal once it is spent', async () => {
    const { consume, spent } = createRateLimiter(redis, uniqueName('gwint'));
    const s = subject(10, 2);
    expect(await spent(s)).toBeNull(); // no window open
    await consume(s);
    expect(await spent(s)).toBeNull();
    expect(await spent(s)).toBeNull(); // reading took nothing
    await consume(s);
    const refused = await spent(s);
    expect(refused).toMatchObject({ allowed: false, limit: 2, remaining: 0, retryAfter: 1 });
    expect(refused!.resetUnix).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 2);
  });
});

describe('the budget of requests refused for their credentials', () => {
  const table = planTableWithOverrides(defaultPlanTable({ rps: 50, concurrency: 25 }), JSON.stringify({ anonymous: { rps: 3, concurrency: 5 } }));

  it('is the anonymous budget of the client IP, shared across replicas and with anonymous callers', async () => {
    const prefix = uniqueName('gwint');
    // Two replicas: each its own limiter objects on the same Redis prefix.
    const [replicaA, replicaB] = [createRateLimiter(redis, prefix), createRateLimiter(redis, prefix)];
    const plansA = createPlanLimiter(table, replicaA.consume, createConcurrencyLimiter(redis, { prefix }));
    const failuresA = createFailedCredentialBudget(table, replicaA);
    const failuresB = createFailedCredentialBudget(table, replicaB);
    const ip = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;

    const anonymous = await plansA.admit(ANONYMOUS, ip);
    expect(anonymous.decision).toMatchObject({ allowed: true, remaining: 2 });
    await anonymous.lease?.release();
    expect(await failuresB.charge(ip)).toMatchObject({ allowed: true, limit: 3, remaining: 1 });
    expect(await failuresA.spent(ip)).toBeNull();
    expect(await failuresA.charge(ip)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await failuresB.spent(ip)).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(await failuresB.charge(ip)).toMatchObject({ allowed: false, remaining: 0 });
    // An anonymous request from that IP is refused too: one budget.
    expect(await plansA.admit(ANONYMOUS, ip)).toMatchObject({ lease: null, reason: 'rate' });
    // Another IP, and an account calling from the same IP, are not touched.
    expect(await failuresA.spent(`${ip}0`)).toBeNull();
    const account = await plansA.admit({ sub: 'acc1', roles: ['USER'], scope: '', method: 'api_key', plan: 'free' }, ip);
    expect(account.decision.allowed).toBe(true);
    await account.lease?.release();
    // The window is one second: after it the IP may try again.
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await failuresB.spent(ip)).toBeNull();
    expect(await failuresA.charge(ip)).toMatchObject({ allowed: true, remaining: 2 });
  });
});
