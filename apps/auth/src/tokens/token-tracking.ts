import type { Redis } from 'ioredis';
import { DERIVED_PREFIX, REVOKED_JTI_PREFIX } from './revocation';
import { redisScript } from '@platform/stores';

/**
 * What auth remembers of each access token it issues for an account, so that a change of the account's
 * rights can revoke every token it holds (see account-revocation.ts), and of each exchanged token, so
 * that it is revoked with the token it was exchanged from (revocation.ts). Auth-internal Redis keys:
 * - `auth:tokens:sub:<sub>`: sorted set of the subject's live access tokens (jti scored by exp);
 * - `auth:account-changed:<sub>`: the account's `securityVersion` after its last change of rights;
 * - `auth:derived:<jti>`: hash of the tokens exchanged from `jti` (jti → exp);
 * - `auth:exchanged:<jti>`: the token `jti` was exchanged from, so that an exchanged token, with or without `act`,
 *   is known as one (it cannot mint API keys: api-keys/mint-api-key.ts).
 */
const SUBJECT_TOKENS_PREFIX = 'auth:tokens:sub:';
export const ACCOUNT_CHANGED_PREFIX = 'auth:account-changed:';
/** `auth:exchanged:<jti>`: set for each exchanged token (RFC 8693) until its `exp`; the value is the token it was exchanged from. */
const EXCHANGED_PREFIX = 'auth:exchanged:';

interface TrackedToken {
  sub: string;
  jti: string;
  exp: number;
  /** `securityVersion` of the account document the token's claims were taken from. */
  accountVersion?: number;
  /** The token this one was exchanged from (RFC 8693). */
  derivedFrom?: { jti: string; exp: number };
}

/**
 * Lua: adds token ARGV[1] (expiring at ARGV[2], now ARGV[3]) to the sorted set KEYS[1] of live tokens,
 * dropping the expired ones and keeping the set until its last token expires. Shared by the per-account
 * and per-client sets (client-token-tracking.ts).
 */
export const ADD_LIVE_TOKEN_LUA = `
local now = tonumber(ARGV[3])
local exp = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], exp, ARGV[1])
if redis.call('TTL', KEYS[1]) < exp - now then redis.call('EXPIRE', KEYS[1], exp - now) end
`;

// One script, so that each check is atomic with the write it guards: a change of rights (which sets
// the marker, then reads the set) either finds this token in the set or is seen here; a revocation
// of the parent (which sets its revoked key, then reads its derived hash) either finds this token in
// the hash or is seen here. Returns 1 when the token was issued from a state that is no longer true.
const TRACK = `${ADD_LIVE_TOKEN_LUA}
local stale = 0
if ARGV[4] ~= '' then
  local changed = redis.call('GET', KEYS[2])
  if changed and tonumber(changed) > tonumber(ARGV[4]) then stale = 1 end
end
if #KEYS >= 4 then
  local parentTtl = tonumber(ARGV[5]) - now
  redis.call('HSET', KEYS[3], ARGV[1], exp)
  if redis.call('TTL', KEYS[3]) < parentTtl then redis.call('EXPIRE', KEYS[3], math.max(parentTtl, 1)) end
  if redis.call('EXISTS', KEYS[4]) == 1 then stale = 1 end
end
return stale
`;

const track = redisScript(TRACK);

/** Records an issued access token; true when it is stale (the account changed, or its parent was revoked, meanwhile). */
export async function trackIssuedToken(redis: Redis, token: TrackedToken): Promise<boolean> {
  const keys = [`${SUBJECT_TOKENS_PREFIX}${token.sub}`, `${ACCOUNT_CHANGED_PREFIX}${token.sub}`];
  if (token.derivedFrom)
    keys.push(`${DERIVED_PREFIX}${token.derivedFrom.jti}`, `${REVOKED_JTI_PREFIX}${token.derivedFrom.jti}`);
  const now = Math.floor(Date.now() / 1000);
  const args = [
    token.jti,
    String(token.exp),
    String(now),
    token.accountVersion === undefined ? '' : String(token.accountVersion),
    String(token.derivedFrom?.exp ?? 0),
  ];
  return (await track(redis, keys, args)) === 1;
}

/** The subject's access tokens that have not expired yet. */
export function liveTokensOf(redis: Redis, sub: string): Promise<{ jti: string; exp: number }[]> {
  return liveTokensIn(redis, `${SUBJECT_TOKENS_PREFIX}${sub}`);
}

/** The tokens of a live-token set (ADD_LIVE_TOKEN_LUA) that have not expired yet. */
export async function liveTokensIn(redis: Redis, setKey: string): Promise<{ jti: string; exp: number }[]> {
  const flat = await redis.zrangebyscore(setKey, Math.floor(Date.now() / 1000) + 1, '+inf', 'WITHSCORES');
  const tokens: { jti: string; exp: number }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) tokens.push({ jti: flat[i]!, exp: Number(flat[i + 1]) });
  return tokens;
}

/** Remembers that `jti` was exchanged from `parentJti`, until `exp`. */
export async function recordExchangedToken(redis: Redis, jti: string, exp: number, parentJti: string): Promise<void> {
  await redis.set(`${EXCHANGED_PREFIX}${jti}`, parentJti, 'EX', Math.max(exp - Math.floor(Date.now() / 1000), 1));
}

/** Whether `jti` is an exchanged token (RFC 8693) that has not expired. */
export async function isExchangedToken(redis: Redis, jti: string): Promise<boolean> {
  return (await redis.exists(`${EXCHANGED_PREFIX}${jti}`)) === 1;
}
