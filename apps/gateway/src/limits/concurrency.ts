import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { LimitSubject } from './plan-limits';
import { redisScript } from '@platform/stores';

/**
 * Requests in progress per subject across all replicas. rate-limiter-flexible counts events in
 * windows and has no semaphore, so this is a small Redis sorted set of leases: each request adds
 * a member scored with its lease deadline (Redis clock, so replicas' clocks do not matter) and
 * removes it when done. A replica that dies leaves leases that expire on their own; long
 * requests (streaming) renew theirs.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
`;

/** KEYS[2…] live as long as the lease (connection-slots.ts keeps a connection's subscription count there). */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[1])) end
  return 1
end
return 0
`;

export interface SlotLease {
  release(): Promise<void>;
}

interface ConcurrencyOptions {
  prefix: string;
  /** How long a slot survives without renewal (a crashed replica's slots free up after this). */
  leaseMs?: number;
}

const renew = redisScript(RENEW);
const acquireScript = redisScript(ACQUIRE);

export function concurrencyKey(prefix: string, subject: LimitSubject): string {
  return `${prefix}:conc:${subject.key}`;
}

/**
 * A granted slot: renewed every third of its lease until released (once; later calls do nothing).
 * `alongside`: keys whose expiry is renewed with it (they die with the lease when a replica does).
 */
export function holdLease(
  redis: Redis,
  key: string,
  id: string,
  options: { leaseMs: number; alongside?: readonly string[] },
): SlotLease {
  const { leaseMs } = options;
  const keys = [key, ...(options.alongside ?? [])];
  const renewal = setInterval(
    () => {
      renew(redis, keys, [leaseMs, id]).catch(() => undefined);
    },
    Math.floor(leaseMs / 3),
  );
  renewal.unref();
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(renewal);
      await redis.zrem(key, id).catch(() => undefined);
    },
  };
}

/** Takes one of `limit` slots of the set `key` for lease member `id` (not renewed: see holdLease); false when all are taken. */
export async function takeSlot(
  redis: Redis,
  key: string,
  limit: number,
  leaseMs: number,
  id: string,
): Promise<boolean> {
  return (await acquireScript(redis, [key], [limit, leaseMs, id])) === 1;
}

export function createConcurrencyLimiter(redis: Redis, options: ConcurrencyOptions) {
  const terms = { leaseMs: options.leaseMs ?? 30_000 };
  return async function acquire(subject: LimitSubject): Promise<SlotLease | null> {
    const key = concurrencyKey(options.prefix, subject);
    const id = randomUUID();
    const granted = await takeSlot(redis, key, subject.limit.concurrency, terms.leaseMs, id);
    return granted ? holdLease(redis, key, id, terms) : null;
  };
}

export type AcquireSlot = ReturnType<typeof createConcurrencyLimiter>;
