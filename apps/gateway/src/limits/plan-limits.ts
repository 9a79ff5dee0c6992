import { isPlanName, type Identity, type PlanName } from '@platform/identity';

interface PlanLimit {
  /** Requests per second. */
  rps: number;
  /** Requests in progress at once. */
  concurrency: number;
}

/**
 * Limits by plan name, and `anonymous` for callers without an account. A `Map`: it is looked up with
 * the plan an account holds, and a plain object would answer `constructor` or `__proto__` with
 * something that is not a limit.
 */
export type PlanTable = ReadonlyMap<PlanName | 'anonymous', PlanLimit>;

/**
 * The speech API's plan table (docs/speech.md, "Plans"). Free's concurrency is "restricted" there; we choose 2: a browser page or an
 * SDK commonly has two requests in flight, and synthesis cost is bounded by the character quota
 * anyway. Enterprise is "custom": it comes from ENTERPRISE_RPS / ENTERPRISE_CONCURRENCY.
 */
export function defaultPlanTable(enterprise: PlanLimit): PlanTable {
  // One entry per plan of `PLAN_NAMES` (libs/speech-store): a plan added there must get its limits here.
  const table: Record<PlanName, PlanLimit> = {
    free: { rps: 3, concurrency: 2 },
    starter: { rps: 5, concurrency: 2 },
    creator: { rps: 10, concurrency: 5 },
    pro: { rps: 20, concurrency: 10 },
    enterprise,
  };
  return new Map(Object.entries(table) as [PlanName, PlanLimit][]);
}

function isLimit(value: unknown): value is PlanLimit {
  if (typeof value !== 'object' || value === null) return false;
  const { rps, concurrency } = value as Record<string, unknown>;
  return Number.isInteger(rps) && Number.isInteger(concurrency) && (rps as number) > 0 && (concurrency as number) > 0;
}

/**
 * Applies `PLAN_LIMITS_JSON` (operators tune plans without a release); rejects bad input at boot,
 * a name that is neither a plan of `PLAN_NAMES` nor `anonymous` included (it could never apply).
 */
export function planTableWithOverrides(base: PlanTable, json: string): PlanTable {
  if (!json.trim()) return base;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error('PLAN_LIMITS_JSON: malformed (not JSON)');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('PLAN_LIMITS_JSON: malformed (not an object)');
  const table = new Map(base);
  for (const [plan, limit] of Object.entries(parsed)) {
    const name = plan.toLowerCase();
    if (name !== 'anonymous' && !isPlanName(name))
      throw new Error(`PLAN_LIMITS_JSON: unknown plan ${plan} (a plan name or anonymous)`);
    if (!isLimit(limit))
      throw new Error(`PLAN_LIMITS_JSON: malformed (plan ${plan} needs positive integer rps and concurrency)`);
    table.set(name, limit);
  }
  return table;
}

export interface LimitSubject {
  /** Who shares the budget: the account (every key and token of it), or the client IP. */
  key: string;
  plan: string;
  limit: PlanLimit;
}

/**
 * Authenticated callers are limited per account with their plan (unknown or missing plan: free);
 * a client-credentials token per client id; anonymous callers per IP with the free plan's numbers.
 */
export function limitSubject(identity: Identity, ip: string, table: PlanTable): LimitSubject {
  if (identity.method === 'anonymous' || !identity.sub) return anonymousSubject(ip, table);
  const lower = (identity.plan ?? 'free').toLowerCase();
  const plan = isPlanName(lower) ? lower : 'free';
  return { key: `acct:${identity.sub}`, plan, limit: table.get(plan) ?? freeLimit(table) };
}

/**
 * The budget of one client IP (as `TRUST_PROXY` resolves it): anonymous callers, and every
 * request refused for its credentials (limits/failed-credentials.ts), share it.
 */
export function anonymousSubject(ip: string, table: PlanTable): LimitSubject {
  return { key: `ip:${ip}`, plan: 'anonymous', limit: table.get('anonymous') ?? freeLimit(table) };
}

function freeLimit(table: PlanTable): PlanLimit {
  const free = table.get('free');
  if (!free) throw new Error('plan table without free');
  return free;
}
