import Redis from 'ioredis';
import { eventually, stackEnv, uniqueName } from '@platform/testing';
import { accountLimitKey, admitLogin, loginSucceeded, type LoginLimits } from '../src/accounts/login-limits';

// The lock arithmetic against a real Redis (its clock): each attempt over the budget doubles the lock,
// up to the cap. Short locks (200 ms first, 1.6 s cap) so the test can wait each one out.

const limits: LoginLimits = {
  accountMaxFailures: 3,
  addressMaxFailures: 1000,
  firstLockMs: 200,
  maxLockMs: 1600,
  failureWindowSeconds: 60,
};
let redis: Redis;
const db = uniqueName('login-limits');

beforeAll(() => {
  redis = new Redis(stackEnv().REDIS_URL);
});
afterAll(async () => {
  await redis.quit();
});

/** The lock an attempt just set, as Redis holds it (until - now, ms). */
async function lockLength(email: string): Promise<number> {
  const [until, [sec, usec]] = await Promise.all([redis.hget(accountLimitKey(db, email), 'until'), redis.time()]);
  return Number(until) - (Number(sec) * 1000 + Math.floor(Number(usec) / 1000));
}

it('locks after the budget, doubling each time up to the cap; a success clears it', async () => {
  const subject = { email: 'Someone@Example.org', address: '203.0.113.5' };
  for (let i = 0; i < 2; i++) expect(await admitLogin(redis, db, limits, subject)).toEqual({ allowed: true });
  expect(await redis.hget(accountLimitKey(db, subject.email), 'until')).toBeNull();
  const seen: number[] = [];
  for (const expected of [200, 400, 800, 1600, 1600]) {
    // Wait out the previous lock: refused until it ends.
    await eventually(async () => (await admitLogin(redis, db, limits, subject)).allowed, 10_000, 10);
    const length = await lockLength(subject.email);
    seen.push(length);
    expect(length).toBeLessThanOrEqual(expected);
    // Measured just after the attempt set it: at most its full length, and longer than the one before.
    expect(length).toBeGreaterThan(expected / 2);
  }
  // The identifier is normalised: the same counter whatever the case and spaces.
  expect(await redis.hget(accountLimitKey(db, ' someone@example.ORG '), 'n')).toBe('7');
  await loginSucceeded(redis, db, limits, subject);
  expect(await redis.exists(accountLimitKey(db, subject.email))).toBe(0);
  expect(seen).toHaveLength(5);
});
