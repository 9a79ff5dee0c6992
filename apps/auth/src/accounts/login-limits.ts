import type { Redis } from 'ioredis';
import { sha256 } from '../crypto/secrets';
import { emailKeyOf } from './email-key';
import { redisScript } from '@platform/stores';

/**
 * Brute-force limits on password checks, kept in Redis so every replica shares them. Two counters per
 * attempt: the account identifier (the normalised email, whether or not such an account exists, so the
 * answer never tells which accounts exist) and the client address (a larger budget, against one address
 * spraying many accounts). Once a counter reaches its budget, each further attempt locks it for a
 * doubling time: 1 s, 2 s, 4 s … (`firstLockMs` by default 1 s) up to `maxLockMs`. A locked counter refuses the attempt before any
 * password is compared, so the right password is refused too until the lock ends.
 *
 * An attempt is counted when it starts (so concurrent guesses cannot all slip past the check) and taken
 * back when it succeeds: a success clears the account's counter and removes its own count from the
 * address's counter.
 */
export interface LoginLimits {
  accountMaxFailures: number;
  addressMaxFailures: number;
  /** The first lock (ms); each further attempt doubles it. */
  firstLockMs: number;
  maxLockMs: number;
  /** Failures are forgotten this long after the last one (seconds). */
  failureWindowSeconds: number;
}

interface LoginSubject {
  email: string;
  address: string;
}

type Admission = { allowed: true } | { allowed: false; retryAfterSeconds: number };

// Namespaced by the auth database so separate deployments (and test runs) sharing a Redis do not share counters.
export const accountLimitKey = (db: string, email: string) =>
  `auth:login-failures:${db}:account:${sha256(emailKeyOf(email))}`;
const addressLimitKey = (db: string, address: string) => `auth:login-failures:${db}:address:${sha256(address)}`;

// KEYS: counters; ARGV: their budgets in the same order, then the first lock, the lock cap and the window (ms).
// Each counter is a hash {n: attempts not taken back, until: lock end in ms}. Redis's clock, not the replica's.
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local first = tonumber(ARGV[#KEYS + 1])
local cap = tonumber(ARGV[#KEYS + 2])
local window = tonumber(ARGV[#KEYS + 3])
local wait = 0
for i, key in ipairs(KEYS) do
  local locked = tonumber(redis.call('HGET', key, 'until') or '0')
  if locked > now and locked - now > wait then wait = locked - now end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  local n = redis.call('HINCRBY', key, 'n', 1)
  local budget = tonumber(ARGV[i])
  local lock = 0
  if n >= budget then
    lock = math.min(first * math.pow(2, math.min(n - budget, 40)), cap)
    redis.call('HSET', key, 'until', string.format('%d', now + lock))
  end
  redis.call('PEXPIRE', key, math.max(window, lock))
end
return 0
`;

// KEYS[1]: the account counter (cleared); KEYS[2]: the address counter (this attempt taken back).
const SUCCEEDED = `
redis.call('DEL', KEYS[1])
if redis.call('EXISTS', KEYS[2]) == 1 then
  local n = redis.call('HINCRBY', KEYS[2], 'n', -1)
  if n < tonumber(ARGV[1]) then redis.call('HDEL', KEYS[2], 'until') end
end
return 0
`;

const admitScript = redisScript(ADMIT);
const succeeded = redisScript(SUCCEEDED);

/** Counts an attempt, or refuses it while either counter is locked. */
export async function admitLogin(
  redis: Redis,
  db: string,
  limits: LoginLimits,
  subject: LoginSubject,
): Promise<Admission> {
  const waitMs = Number(
    await admitScript(
      redis,
      [accountLimitKey(db, subject.email), addressLimitKey(db, subject.address)],
      [
        limits.accountMaxFailures,
        limits.addressMaxFailures,
        limits.firstLockMs,
        limits.maxLockMs,
        limits.failureWindowSeconds * 1000,
      ],
    ),
  );
  return waitMs > 0 ? { allowed: false, retryAfterSeconds: Math.ceil(waitMs / 1000) } : { allowed: true };
}

export async function loginSucceeded(
  redis: Redis,
  db: string,
  limits: LoginLimits,
  subject: LoginSubject,
): Promise<void> {
  await succeeded(
    redis,
    [accountLimitKey(db, subject.email), addressLimitKey(db, subject.address)],
    [limits.addressMaxFailures],
  );
}

/** Admin unlock: forgets the failures of an account identifier and/or a client address. Returns how many counters existed. */
export async function unlockLogins(
  redis: Redis,
  db: string,
  target: { email?: string; address?: string },
): Promise<number> {
  const keys = [
    ...(target.email !== undefined ? [accountLimitKey(db, target.email)] : []),
    ...(target.address !== undefined ? [addressLimitKey(db, target.address)] : []),
  ];
  return keys.length > 0 ? redis.del(...keys) : 0;
}
