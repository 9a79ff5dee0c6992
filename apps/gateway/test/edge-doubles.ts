import type { FailedCredentialBudget } from '../src/limits/failed-credentials';
import type { PlanLimiter } from '../src/limits/limit-middleware';

/** Stand-ins for the edge's Redis-backed limits in tests of routing: every request is admitted. */
const allowed = { allowed: true, limit: 10, remaining: 9, resetUnix: 0, retryAfter: 0 };

export const admitAll: PlanLimiter = {
  admit: () => Promise.resolve({ decision: allowed, lease: { release: () => Promise.resolve() } }),
  admitToken: () => Promise.resolve({ revoked: false, decision: allowed, lease: { release: () => Promise.resolve() } }),
};

/** No client address has spent its failed-credential budget. */
export const noFailedCredentials: FailedCredentialBudget = {
  spent: () => Promise.resolve(null),
  charge: () => Promise.resolve(allowed),
};
