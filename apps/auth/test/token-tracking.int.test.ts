import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { stackEnv } from '@platform/testing';
import { isAccessTokenRevoked, revokeAccessToken } from '../src/tokens/revocation';
import { ACCOUNT_CHANGED_PREFIX, liveTokensOf, trackIssuedToken } from '../src/tokens/token-tracking';

// The bookkeeping behind "a change of rights revokes everything the account holds" and "an exchanged
// token goes with its subject token", against a real Redis: each side of a race either finds the
// other's write or is found by it.

let redis: Redis;
const now = () => Math.floor(Date.now() / 1000);

beforeAll(() => {
  redis = new Redis(stackEnv().REDIS_URL);
});
afterAll(async () => {
  await redis.quit();
});

it('an account change sees every token tracked before it; a token tracked after it from the old account state is stale', async () => {
  const sub = randomUUID();
  const before = { sub, jti: randomUUID(), exp: now() + 600, accountVersion: 0 };
  expect(await trackIssuedToken(redis, before)).toBe(false);
  expect(await liveTokensOf(redis, sub)).toEqual([{ jti: before.jti, exp: before.exp }]);

  // The change: version 1 written to the marker (account-revocation.ts does this first).
  await redis.set(`${ACCOUNT_CHANGED_PREFIX}${sub}`, '1', 'EX', 60);
  expect(await trackIssuedToken(redis, { sub, jti: randomUUID(), exp: now() + 600, accountVersion: 0 })).toBe(true);
  // Issued from the account as it is now: fine.
  expect(await trackIssuedToken(redis, { sub, jti: randomUUID(), exp: now() + 600, accountVersion: 1 })).toBe(false);
  // No account document behind the claims (token exchange): the marker does not apply, the parent does.
  expect(await trackIssuedToken(redis, { sub, jti: randomUUID(), exp: now() + 600 })).toBe(false);
});

it('expired tokens leave the set; live ones are listed with their exp', async () => {
  const sub = randomUUID();
  await trackIssuedToken(redis, { sub, jti: 'old', exp: now() - 1 });
  const live = { jti: randomUUID(), exp: now() + 300 };
  await trackIssuedToken(redis, { sub, ...live });
  expect(await liveTokensOf(redis, sub)).toEqual([live]);
  expect(await redis.zcard(`auth:tokens:sub:${sub}`)).toBe(1);
  expect(await redis.ttl(`auth:tokens:sub:${sub}`)).toBeGreaterThan(250);
});

it('revoking a token revokes the tokens exchanged from it, and theirs; one exchanged from a revoked token is stale', async () => {
  const sub = randomUUID();
  const parent = { jti: randomUUID(), exp: now() + 600 };
  const child = { jti: randomUUID(), exp: now() + 500 };
  const grandchild = { jti: randomUUID(), exp: now() + 400 };
  const sibling = { jti: randomUUID(), exp: now() + 600 };
  expect(await trackIssuedToken(redis, { sub, ...child, derivedFrom: parent })).toBe(false);
  expect(await trackIssuedToken(redis, { sub, ...grandchild, derivedFrom: child })).toBe(false);
  expect(await trackIssuedToken(redis, { sub, ...sibling })).toBe(false);

  await revokeAccessToken(redis, parent.jti, parent.exp);
  expect(await isAccessTokenRevoked(redis, parent.jti)).toBe(true);
  expect(await isAccessTokenRevoked(redis, child.jti)).toBe(true);
  expect(await isAccessTokenRevoked(redis, grandchild.jti)).toBe(true);
  expect(await isAccessTokenRevoked(redis, sibling.jti)).toBe(false);
  expect(await redis.ttl(`auth:revoked:jti:${grandchild.jti}`)).toBeLessThanOrEqual(400);

  // Exchanged after the revocation landed (the exchange checked the parent just before): stale.
  expect(await trackIssuedToken(redis, { sub, jti: randomUUID(), exp: now() + 300, derivedFrom: parent })).toBe(true);
});
