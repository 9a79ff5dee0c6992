import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';
import { redisScript } from '@platform/stores';
import { holdLease, takeSlot, type SlotLease } from './concurrency';

/**
 * WebSocket connections, and their active subscriptions, per client address or account across all
 * replicas. A connection holds a lease in the subject's sorted set (concurrency.ts: the same
 * machinery as plan concurrency, so a replica that dies frees its connections when their leases
 * lapse); its subscription count is a field of the subject's hash, named by the lease, renewed with
 * it. Counting a subscription sums the fields of live leases and drops the others.
 *
 * KEYS: the subject's lease set, its subscription hash. ARGV: limit, lease id, lease ms.
 */
const ADD_SUBSCRIPTION = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local counts = redis.call('HGETALL', KEYS[2])
local total = 0
for i = 1, #counts, 2 do
  local deadline = redis.call('ZSCORE', KEYS[1], counts[i])
  if deadline and tonumber(deadline) > now then
    total = total + tonumber(counts[i + 1])
  else
    redis.call('HDEL', KEYS[2], counts[i])
  end
end
if total >= tonumber(ARGV[1]) then return 0 end
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]))
return 1
`;
const addSubscriptionScript = redisScript(ADD_SUBSCRIPTION);

/** One open connection's hold on its subject's budgets. */
export interface ConnectionSlot {
  /** Counts one more active subscription for the subject; false when it already has `limit`. */
  addSubscription(limit: number): Promise<boolean>;
  /** One of this connection's subscriptions ended. */
  removeSubscription(): void;
  /** The connection closed: its slot and its subscriptions are freed (once; later calls do nothing). */
  release(): Promise<void>;
}

interface ConnectionSlotsOptions {
  /** Key prefix (`RATE_LIMIT_PREFIX` plus the endpoint: graphql-ws and stream-input count apart). */
  prefix: string;
  /** A dead replica's connections stop counting this long after its last renewal. */
  leaseMs?: number;
  logger: Logger;
}

export type OpenConnection = (subject: string, limit: number) => Promise<ConnectionSlot | null>;

/**
 * Counts of this replica alone, used while Redis fails (as the rate limiter falls back to its
 * in-memory insurance): the caps still hold per replica rather than the gates opening or closing.
 */
class LocalCounts {
  private readonly counts = new Map<string, number>();

  take(key: string, limit: number): boolean {
    const held = this.counts.get(key) ?? 0;
    if (held >= limit) return false;
    this.counts.set(key, held + 1);
    return true;
  }

  give(key: string, n = 1): void {
    const left = (this.counts.get(key) ?? 0) - n;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
  }
}

export function createConnectionSlots(redis: Redis, options: ConnectionSlotsOptions): OpenConnection {
  const leaseMs = options.leaseMs ?? 30_000;
  const local = new LocalCounts();
  const failed = (what: string) => (err: unknown) => {
    options.logger.error({ err }, `connection limits: Redis failed; ${what} counted on this replica only`);
  };

  return async function open(subject, limit) {
    const connKey = `${options.prefix}:conn:${subject}`;
    const subsKey = `${options.prefix}:subs:${subject}`;
    const id = randomUUID();
    let lease: SlotLease | null = null;
    try {
      if (!(await takeSlot(redis, connKey, limit, leaseMs, id))) return null;
      lease = holdLease(redis, connKey, id, { leaseMs, alongside: [subsKey] });
    } catch (err) {
      failed('this connection')(err);
      if (!local.take(`conn:${subject}`, limit)) return null;
    }
    // Subscriptions counted by Redis (on this connection's field) and, when it failed, here.
    let shared = 0;
    let localSubs = 0;
    let released = false;
    return {
      async addSubscription(max) {
        if (released) return false;
        try {
          if (!lease) throw new Error('connection counted locally');
          const granted = (await addSubscriptionScript(redis, [connKey, subsKey], [max, id, leaseMs])) === 1;
          if (granted) shared += 1;
          return granted;
        } catch (err) {
          if (lease) failed('a subscription')(err);
          const granted = local.take(`subs:${subject}`, max);
          if (granted) localSubs += 1;
          return granted;
        }
      },
      removeSubscription() {
        if (released) return;
        if (localSubs > 0) {
          localSubs -= 1;
          local.give(`subs:${subject}`);
        } else if (shared > 0) {
          shared -= 1;
          redis.hincrby(subsKey, id, -1).catch(failed('a subscription end'));
        }
      },
      async release() {
        if (released) return;
        released = true;
        local.give(`subs:${subject}`, localSubs);
        if (!lease) {
          local.give(`conn:${subject}`);
          return;
        }
        await redis.hdel(subsKey, id).catch(() => undefined);
        await lease.release();
      },
    };
  };
}
