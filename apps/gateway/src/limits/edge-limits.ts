import type { IncomingMessage } from 'node:http';
import type { Redis } from 'ioredis';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import { planName } from '@platform/speech-store';
import type { ApiKeyResolver } from '../auth/api-key-cache';
import { recordLimitRefusal } from '../metrics/gateway-metrics';
import { createAdmission } from './admission';
import { upgradeClientAddress } from './client-address';
import { createConcurrencyLimiter } from './concurrency';
import { createConnectionSlots, type OpenConnection } from './connection-slots';
import { createFailedCredentialBudget, type FailedCredentialBudget } from './failed-credentials';
import { createPlanLimiter, type PlanLimiter } from './limit-middleware';
import { anonymousSubject, defaultPlanTable, limitSubject, planTableWithOverrides } from './plan-limits';
import { createRateLimiter } from './rate-limiter';
import type { LimitsConfig } from './limits-config';
import { createWebSocketLogins, type WebSocketLogins } from './websocket-logins';

export interface EdgeLimits {
  /** Plan rate and concurrency of HTTP requests (limit-middleware.ts). */
  limiter: PlanLimiter;
  /** The client address's budget for requests refused for their credentials (failed-credentials.ts). */
  failedCredentials: FailedCredentialBudget;
  /** The same budget for WebSocket logins (graphql-ws, stream-input). */
  webSocketLogins: WebSocketLogins;
  /** An upgrade request's client address, as TRUSTED_PROXIES resolves it. */
  addressOf: (req: IncomingMessage) => string;
  /** Who shares a WebSocket limit: the account, or the client address when anonymous (plan-limits.ts). */
  subjectOf: (identity: Identity | null, address: string) => string;
  /** WebSocket connections of one kind (`graphql`, `speech`) per subject, across replicas (connection-slots.ts). */
  connectionsOf(kind: string): OpenConnection;
  /** One of the plan's concurrency slots for a WebSocket session; null (counted as refused) when none is free. */
  acquireSession(identity: Identity): Promise<(() => Promise<void>) | null>;
}

/**
 * The edge's limits (docs/security.md "Rate limits", "WebSocket limits"): plan limits shared across
 * replicas in Redis, the failed-credential budget per client address, and WebSocket connection counts.
 */
export function createEdgeLimits(
  config: LimitsConfig,
  deps: { redis: Redis; apiKeys: Pick<ApiKeyResolver, 'isCached'>; logger: Logger },
): EdgeLimits {
  const { redis, logger } = deps;
  const prefix = config.RATE_LIMIT_PREFIX;
  const plans = planTableWithOverrides(
    defaultPlanTable({ rps: config.ENTERPRISE_RPS, concurrency: config.ENTERPRISE_CONCURRENCY }),
    config.PLAN_LIMITS_JSON,
  );
  const acquireSlot = createConcurrencyLimiter(redis, { prefix });
  const rate = createRateLimiter(redis, prefix);
  const failedCredentials = createFailedCredentialBudget(plans, rate);
  const addressOf = upgradeClientAddress(config.TRUSTED_PROXIES);
  return {
    limiter: createPlanLimiter(plans, rate.consume, acquireSlot, createAdmission(redis, { prefix })),
    failedCredentials,
    webSocketLogins: createWebSocketLogins({ failures: failedCredentials, apiKeys: deps.apiKeys, addressOf, logger }),
    addressOf,
    subjectOf: (identity, address) =>
      (identity ? limitSubject(identity, address, plans) : anonymousSubject(address, plans)).key,
    connectionsOf: (kind) => createConnectionSlots(redis, { prefix: `${prefix}:ws:${kind}`, logger }),
    async acquireSession(identity) {
      const lease = await acquireSlot(limitSubject(identity, 'websocket', plans));
      if (!lease) recordLimitRefusal(planName(identity.plan), 'concurrency');
      return lease ? () => lease.release() : null;
    },
  };
}
