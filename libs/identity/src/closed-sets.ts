/**
 * The closed sets an account's rights are drawn from, defined once: auth validates every write of a
 * role or plan against them (admin API, admin CLI, internal endpoints), the gateway and content read
 * them from the identity it signs. A value outside a list is refused where it is written, and a lookup
 * keyed by one (a plan's rate limit) goes through a `Map` or `isPlanName`, never `object[name]`, so a
 * name such as `constructor` or `__proto__` finds nothing.
 */
/** The most privileged first: the order is the rank (libs/events `ROLE_RANKS`). */
export const ROLES = ['ADMIN', 'MODERATOR', 'USER'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The subscription plans, cheapest first (libs/speech-store's allowances, the gateway's rate limits and
 * the synthesis queue's priorities are per plan). Adding a plan is a change here: configuration
 * (`SPEECH_PLANS`, `PLAN_LIMITS_JSON`) tunes these plans and cannot name others.
 */
export const PLAN_NAMES = ['free', 'starter', 'creator', 'pro', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

const roleSet: ReadonlySet<string> = new Set(ROLES);
const planSet: ReadonlySet<string> = new Set(PLAN_NAMES);

export const isRole = (value: unknown): value is Role => typeof value === 'string' && roleSet.has(value);
export const isPlanName = (value: unknown): value is PlanName => typeof value === 'string' && planSet.has(value);
