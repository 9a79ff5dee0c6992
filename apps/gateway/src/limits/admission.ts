import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { concurrencyKey, holdLease, type SlotLease } from './concurrency';
import type { LimitSubject } from './plan-limits';
import { rateDecision, rateWindowKey, type RateDecision } from './rate-limiter';
import { redisScript } from '@platform/stores';

/**
 * Everything a request asks of Redis before it is forwarded, in one script (one round trip):
 * whether its access token was revoked (`auth:revoked:jti:<jti>`, when the token was verified with
 * revocation deferred), then a point from the plan's rate window (the same key and arithmetic as
 * rate-limiter-flexible's `RateLimiterRedis`, so `rate-limiter.ts` reads and charges the same
 * windows), then a concurrency lease (the same sorted set as `concurrency.ts`). A revoked token
 * touches no limit; a request the rate refuses takes no slot.
 *
 * KEYS: rate window, concurrency set[, revocation key]. ARGV: rps, window seconds, concurrency,
 * lease ms, lease id. Reply: {-1} revoked, else {consumed, window ttl ms, slot granted 0/1}.
 */
const ADMIT = `
if KEYS[3] and redis.call('EXISTS', KEYS[3]) == 1 then return {-1, 0, 0} end
redis.call('SET', KEYS[1], 0, 'EX', ARGV[2], 'NX')
local consumed = redis.call('INCRBY', KEYS[1], 1)
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  ttl = 1000 * tonumber(ARGV[2])
end
if consumed > tonumber(ARGV[1]) then return {consumed, ttl, 0} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return {consumed, ttl, 0} end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[5])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]))
return {consumed, ttl, 1}
`;

const admitScript = redisScript(ADMIT);

export type Admission =
  | { revoked: true }
  | { revoked: false; decision: RateDecision; lease: SlotLease | null; reason?: 'rate' | 'concurrency' };

interface AdmissionOptions {
  prefix: string;
  leaseMs?: number;
  now?: () => number;
}

export function createAdmission(redis: Redis, options: AdmissionOptions) {
  const leaseMs = options.leaseMs ?? 30_000;
  const now = options.now ?? Date.now;
  const leaseTerms = { leaseMs };
  /** `revocationKey`: the token's `auth:revoked:jti:<jti>`, when this request must check it. */
  return async function admit(subject: LimitSubject, revocationKey?: string): Promise<Admission> {
    const rateKey = rateWindowKey(options.prefix, subject);
    const slotKey = concurrencyKey(options.prefix, subject);
    const id = randomUUID();
    const keys = revocationKey ? [rateKey, slotKey, revocationKey] : [rateKey, slotKey];
    const reply = (await admitScript(redis, keys, [
      subject.limit.rps,
      1,
      subject.limit.concurrency,
      leaseMs,
      id,
    ])) as number[];
    const [consumed = 0, ttl = 0, granted = 0] = reply;
    if (consumed === -1) return { revoked: true };
    const points = subject.limit.rps;
    const allowed = consumed <= points;
    const decision = rateDecision(points, consumed, ttl, allowed, now);
    if (!allowed) return { revoked: false, decision, lease: null, reason: 'rate' };
    if (granted !== 1) return { revoked: false, decision, lease: null, reason: 'concurrency' };
    return { revoked: false, decision, lease: holdLease(redis, slotKey, id, leaseTerms) };
  };
}

export type Admit = ReturnType<typeof createAdmission>;
