import type { ApiKeyResolver } from '../auth/api-key-cache';
import type { Credential } from '../auth/credentials';
import { anonymousSubject, type PlanTable } from './plan-limits';
import type { RateDecision, RateLimiter } from './rate-limiter';

/**
 * Requests refused at authentication (no credential where one is required, malformed header,
 * unknown or revoked API key, bad or expired token, bad DPoP proof) never reach the plan limiter,
 * which limits accounts. Left at that they would be free: anyone could send made-up keys without
 * end, each one costing auth a lookup. So each refusal is one request from the budget of its client
 * IP, the same budget anonymous callers use. Once that budget is spent for the current window, a
 * refusal becomes 429, and an API key this replica would have to ask auth about is refused before
 * auth is asked (docs/gateway.md, "Requests refused for their credentials"). HTTP requests are
 * charged by auth/authenticate-middleware.ts, WebSocket logins by limits/websocket-logins.ts.
 */
export interface FailedCredentialBudget {
  /** The 429's numbers when the IP's budget is already spent in this window; null while it has room. */
  spent(ip: string): Promise<RateDecision | null>;
  /** Counts one refused request; `allowed` is false when it no longer fit (answer 429, not 401). */
  charge(ip: string): Promise<RateDecision>;
}

export function createFailedCredentialBudget(
  table: PlanTable,
  rate: Pick<RateLimiter, 'consume' | 'spent'>,
): FailedCredentialBudget {
  return {
    spent: (ip) => rate.spent(anonymousSubject(ip, table)),
    charge: (ip) => rate.consume(anonymousSubject(ip, table)),
  };
}

/** 400 and 401 at authentication are the caller's credentials failing; 403 (valid, lacks a scope) and 503 (auth unavailable) are not. */
export function isCredentialFailure(status: number): boolean {
  return status === 400 || status === 401;
}

/**
 * Whether checking this credential means a lookup at auth: an API key this replica holds in neither
 * cache. Once the IP's budget is spent such a credential is refused unchecked; anything else is
 * checked locally (cached keys, JWTs), so valid callers behind a spent address keep working.
 */
export function asksAuth(credential: Credential, apiKeys: Pick<ApiKeyResolver, 'isCached'>): boolean {
  return credential.kind === 'api_key' && !apiKeys.isCached(credential.key);
}

/** What a refusal says once the IP's budget is spent (HTTP 429, graphql-ws close 4429, stream-input). */
export function addressSpentMessage(decision: RateDecision): string {
  return `too many requests from this address: ${decision.limit} per second for requests without valid credentials`;
}
