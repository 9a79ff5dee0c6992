import { anonymousSubject, type PlanTable } from './plans';
import type { RateDecision, RateLimiter } from './rate-limiter';

/**
 * Requests refused at authentication (no credential where one is required, malformed header,
 * unknown or revoked API key, bad or expired token, bad DPoP proof) never reach the plan limiter,
 * which limits accounts. Left at that they would be free: anyone could send made-up keys without
 * end, each one costing auth a lookup. So each refusal is one request from the budget of its client
 * IP, the same budget anonymous callers use. Once that budget is spent for the current window, a
 * refusal becomes 429, and an API key this replica would have to ask auth about is refused before
 * auth is asked (docs/gateway.md, "Requests refused for their credentials").
 */
export interface FailedCredentialBudget {
  /** The 429's numbers when the IP's budget is already spent in this window; null while it has room. */
  spent(ip: string): Promise<RateDecision | null>;
  /** Counts one refused request; `allowed` is false when it no longer fit (answer 429, not 401). */
  charge(ip: string): Promise<RateDecision>;
}

export function createFailedCredentialBudget(table: PlanTable, rate: Pick<RateLimiter, 'consume' | 'spent'>): FailedCredentialBudget {
  return {
    spent: (ip) => rate.spent(anonymousSubject(ip, table)),
    charge: (ip) => rate.consume(anonymousSubject(ip, table)),
  };
}

/** 400 and 401 at authentication are the caller's credentials failing; 403 (valid, lacks a scope) and 503 (auth unavailable) are not. */
export function isCredentialFailure(status: number): boolean {
  return status === 400 || status === 401;
}
