import { isDuplicateKey } from '../domain/domain-errors';
import type { LeaseDoc, LeaseModel } from '../models/lease-model';

/**
 * A lease in MongoDB: one document per lease, taken or renewed by one atomic findOneAndUpdate
 * whose pipeline keeps the current holder unless it is the caller or its time ran out. Expiry is
 * judged by the server's clock (`$$NOW`), so replicas whose clocks disagree cannot both hold it.
 * The holder renews at most every third of the TTL; until then it trusts its last renewal (the
 * server's deadline is at least a TTL after the renewal was sent).
 */
interface Lease {
  /** True when the caller holds the lease now (taken, renewed, or renewed recently enough). */
  hold: () => Promise<boolean>;
  /** Gives the lease up at once, if the caller holds it. */
  release: () => Promise<void>;
}

export function createLease(leases: LeaseModel, name: string, holder: string, ttlMs: number): Lease {
  let renewedAt: number | undefined;
  const free = { $or: [{ $eq: ['$holder', holder] }, { $not: [{ $gt: ['$until', '$$NOW'] }] }] };
  return {
    async hold() {
      const sentAt = Date.now();
      if (renewedAt !== undefined && sentAt - renewedAt < ttlMs / 3) return true;
      renewedAt = undefined;
      try {
        const lease = await leases
          .findOneAndUpdate(
            { _id: name },
            [
              {
                $set: {
                  holder: { $cond: [free, holder, '$holder'] },
                  until: { $cond: [free, { $add: ['$$NOW', ttlMs] }, '$until'] },
                },
              },
            ],
            { upsert: true, new: true },
          )
          .lean<LeaseDoc>();
        if (lease?.holder !== holder) return false;
      } catch (err) {
        // Two first-ever takers race on the upsert; the loser does not hold it.
        if (isDuplicateKey(err)) return false;
        throw err;
      }
      renewedAt = sentAt;
      return true;
    },
    async release() {
      renewedAt = undefined;
      await leases.updateOne({ _id: name, holder }, [{ $set: { until: '$$NOW' } }]);
    },
  };
}
