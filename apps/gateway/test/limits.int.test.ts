import { Redis } from 'ioredis';
import { eventually, inOneWindow, stackEnv, uniqueName, untilClock } from '@platform/testing';
import { ANONYMOUS } from '../src/auth/authenticate';
import { createAdmission } from '../src/limits/admission';
import { createConcurrencyLimiter } from '../src/limits/concurrency';
import { createFailedCredentialBudget } from '../src/limits/failed-credentials';
import { createPlanLimiter } from '../src/limits/limit-middleware';
import { createRateLimiter } from '../src/limits/rate-limiter';
import { defaultPlanTable, planTableWithOverrides, type LimitSubject } from '../src/limits/plan-limits';

let redis: Redis;

beforeAll(() => {
  redis = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  await redis.quit();
});

const subject = (concurrency: number, rps = 3): LimitSubject => ({
  key: `acct:${uniqueName('a')}`,
  plan: 'free',
  limit: { rps, concurrency },
});

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
    const LEASE_MS = 1_000;
    const survivor = createConcurrencyLimiter(redis, { prefix, leaseMs: LEASE_MS });
    // "Still held" means something only while the dead replica's lease is younger than LEASE_MS:
    // an attempt whose two calls took longer is discarded and redone on a fresh subject.
    const { s, dying, whileLive } = await inOneWindow(
      async ({ s, doomed }) => {
        const dying = await createConcurrencyLimiter(doomed, { prefix, leaseMs: LEASE_MS })(s);
        doomed.disconnect();
        return { s, dying, whileLive: await survivor(s) };
      },
      {
        windowMs: LEASE_MS,
        before: async () => {
          const doomed = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: 0, retryStrategy: () => null });
          await doomed.ping();
          return { s: subject(1), doomed };
        },
      },
    );
    expect(dying).not.toBeNull();
    expect(whileLive).toBeNull();
    // Nothing releases or renews it now: the slot comes back once the lease runs out. The bound
    // only ends a hang (the default lease is 30 s; this one is 1 s).
    let next: Awaited<ReturnType<typeof survivor>> = null;
    await eventually(async () => (next = await survivor(s)) !== null, 10_000);
    expect(next).not.toBeNull();
    await next!.release();
  });
});

describe('rate limiter (rate-limiter-flexible on Redis)', () => {
  it('admits rps requests per window and reports remaining, reset and retry-after', async () => {
    const { consume } = createRateLimiter(redis, uniqueName('gwint'));
    // All five must be counted in one window: an attempt that straddled two is redone on a fresh subject.
    const { decisions, now } = await inOneWindow(async () => {
      const s = subject(10, 3);
      const decisions = [];
      for (let i = 0; i < 5; i += 1) decisions.push(await consume(s));
      return { decisions, now: Math.floor(Date.now() / 1000) };
    });
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
    for (const d of decisions) {
      expect(d.limit).toBe(3);
      expect(d.resetUnix).toBeGreaterThanOrEqual(now);
      expect(d.resetUnix).toBeLessThanOrEqual(now + 2);
    }
    expect(decisions[4]!.retryAfter).toBe(1);
  });

  it('reads a window without counting: null while it has room, the refusal once it is spent', async () => {
    const { consume, spent } = createRateLimiter(redis, uniqueName('gwint'));
    const seen = await inOneWindow(async () => {
      const s = subject(10, 2);
      const noWindow = await spent(s);
      await consume(s);
      const withRoom = [await spent(s), await spent(s)];
      await consume(s);
      return { noWindow, withRoom, refused: await spent(s), now: Math.floor(Date.now() / 1000) };
    });
    expect(seen.noWindow).toBeNull(); // no window open
    expect(seen.withRoom).toEqual([null, null]); // the second read: reading took nothing
    expect(seen.refused).toMatchObject({ allowed: false, limit: 2, remaining: 0, retryAfter: 1 });
    expect(seen.refused!.resetUnix).toBeLessThanOrEqual(seen.now + 2);
  });
});

describe('the budget of requests refused for their credentials', () => {
  const table = planTableWithOverrides(
    defaultPlanTable({ rps: 50, concurrency: 25 }),
    JSON.stringify({ anonymous: { rps: 3, concurrency: 5 } }),
  );

  it('is the anonymous budget of the client IP, shared across replicas and with anonymous callers', async () => {
    // One window for the whole sequence: an attempt that straddled two is redone with a fresh IP and prefix.
    const seen = await inOneWindow(async () => {
      const prefix = uniqueName('gwint');
      // Two replicas: each its own limiter objects on the same Redis prefix.
      const [replicaA, replicaB] = [createRateLimiter(redis, prefix), createRateLimiter(redis, prefix)];
      const plansA = createPlanLimiter(table, replicaA.consume, createConcurrencyLimiter(redis, { prefix }));
      const failuresA = createFailedCredentialBudget(table, replicaA);
      const failuresB = createFailedCredentialBudget(table, replicaB);
      const ip = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
      const anonymous = await plansA.admit(ANONYMOUS, ip);
      await anonymous.lease?.release();
      const charges = [
        await failuresB.charge(ip),
        await failuresA.spent(ip),
        await failuresA.charge(ip),
        await failuresB.spent(ip),
        await failuresB.charge(ip),
      ];
      const anonymousAgain = await plansA.admit(ANONYMOUS, ip);
      const otherIp = await failuresA.spent(`${ip}0`);
      const account = await plansA.admit(
        { sub: 'acc1', roles: ['USER'], scope: '', method: 'api_key', plan: 'free' },
        ip,
      );
      await account.lease?.release();
      return { ip, failuresA, failuresB, anonymous, charges, anonymousAgain, otherIp, account };
    });
    const { ip, failuresA, failuresB } = seen;
    expect(seen.anonymous.decision).toMatchObject({ allowed: true, remaining: 2 });
    const [chargedB, spentA, chargedA, spentB, refusedB] = seen.charges;
    expect(chargedB).toMatchObject({ allowed: true, limit: 3, remaining: 1 });
    expect(spentA).toBeNull();
    expect(chargedA).toMatchObject({ allowed: true, remaining: 0 });
    expect(spentB).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(refusedB).toMatchObject({ allowed: false, remaining: 0 });
    // An anonymous request from that IP is refused too: one budget.
    expect(seen.anonymousAgain).toMatchObject({ lease: null, reason: 'rate' });
    // Another IP, and an account calling from the same IP, are not touched.
    expect(seen.otherIp).toBeNull();
    expect(seen.account.decision.allowed).toBe(true);
    // The window is one second: once the clock passes the reset it announced, the IP may try again.
    await untilClock(spentB!.resetUnix * 1000);
    expect(await failuresB.spent(ip)).toBeNull();
    expect(await failuresA.charge(ip)).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe('one-trip admission (revocation + rate + concurrency in one script)', () => {
  const table = planTableWithOverrides(
    defaultPlanTable({ rps: 50, concurrency: 25 }),
    JSON.stringify({ free: { rps: 3, concurrency: 1 } }),
  );
  const caller = () => ({
    sub: uniqueName('acct'),
    roles: ['USER' as const],
    scope: '',
    method: 'bearer_jwt' as const,
    plan: 'free',
  });

  it('counts in the same windows and slots as the rate and concurrency limiters', async () => {
    const seen = await inOneWindow(async () => {
      const prefix = uniqueName('gwint');
      const rate = createRateLimiter(redis, prefix);
      const acquire = createConcurrencyLimiter(redis, { prefix });
      const oneTrip = createPlanLimiter(table, rate.consume, acquire, createAdmission(redis, { prefix }));
      const twoCalls = createPlanLimiter(table, rate.consume, acquire);
      const who = caller();
      const first = await oneTrip.admit(who, '192.0.2.1');
      const whileHeld = await twoCalls.admit(who, '192.0.2.1'); // the one slot is taken
      await first.lease?.release();
      const second = await twoCalls.admit(who, '192.0.2.1');
      await second.lease?.release();
      const third = await oneTrip.admit(who, '192.0.2.1');
      return { first, whileHeld, second, third };
    });
    expect(seen.first).toMatchObject({ decision: { allowed: true, limit: 3, remaining: 2 } });
    expect(seen.first.lease).not.toBeNull();
    expect(seen.whileHeld).toMatchObject({ lease: null, reason: 'concurrency', decision: { remaining: 1 } });
    expect(seen.second.decision.remaining).toBe(0);
    expect(seen.third).toMatchObject({
      lease: null,
      reason: 'rate',
      decision: { allowed: false, remaining: 0, retryAfter: 1 },
    });
  });

  it('refuses a revoked token before touching any limit, and checks an unrevoked one in the same trip', async () => {
    const prefix = uniqueName('gwint');
    const rate = createRateLimiter(redis, prefix);
    const limiter = createPlanLimiter(
      table,
      rate.consume,
      createConcurrencyLimiter(redis, { prefix }),
      createAdmission(redis, { prefix }),
    );
    const who = caller();
    const revokedKey = `auth:revoked:jti:${uniqueName('jti')}`;
    await redis.set(revokedKey, '1', 'EX', 60);
    expect(await limiter.admitToken(who, '192.0.2.1', revokedKey)).toEqual({ revoked: true });
    expect(await rate.spent({ key: `acct:${who.sub}`, plan: 'free', limit: { rps: 1, concurrency: 1 } })).toBeNull();
    const live = await limiter.admitToken(who, '192.0.2.1', `auth:revoked:jti:${uniqueName('jti')}`);
    expect(live).toMatchObject({ revoked: false, decision: { allowed: true } });
    if (!live.revoked) await live.lease?.release();
  });

  it('fails closed for a token when Redis fails, and falls back to the two calls without one', async () => {
    const broken = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    await broken.ping();
    broken.disconnect();
    const prefix = uniqueName('gwint');
    const rate = createRateLimiter(redis, prefix);
    const limiter = createPlanLimiter(
      table,
      rate.consume,
      createConcurrencyLimiter(redis, { prefix }),
      createAdmission(broken, { prefix }),
    );
    await expect(limiter.admitToken(caller(), '192.0.2.1', 'auth:revoked:jti:x')).rejects.toThrow();
    const admitted = await limiter.admit(caller(), '192.0.2.1');
    expect(admitted.decision.allowed).toBe(true);
    await admitted.lease?.release();
  });
});
