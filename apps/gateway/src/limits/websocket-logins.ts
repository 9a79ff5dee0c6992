import type { IncomingMessage } from 'node:http';
import type { Logger } from '@platform/logger';
import type { ApiKeyResolver } from '../auth/api-key-cache';
import type { Credential } from '../auth/credentials';
import { asksAuth, type FailedCredentialBudget } from './failed-credentials';
import type { RateDecision } from './rate-limiter';

/**
 * Logins over WebSocket (graphql-ws `connection_init`, the speech `stream-input` key) pay for their
 * refusals from the same per-IP budget as HTTP requests refused for their credentials
 * (failed-credentials.ts), the IP resolved from the upgrade request as for HTTP (`TRUST_PROXY`).
 * Each socket turns a refusal here into its own close (docs/gateway.md, docs/speech.md).
 */
export interface WebSocketLogins {
  /**
   * Before `credential` is checked: the 429's numbers when the client IP's budget is spent and
   * checking it would ask auth (refuse the login unchecked); null: check it.
   */
  refuseUnchecked(req: IncomingMessage, credential: Credential): Promise<RateDecision | null>;
  /**
   * The login was refused for its credential (400/401): one request of the IP's budget. The 429's
   * numbers when it no longer fit; null when it did (refuse as usual), or could not be counted.
   */
  chargeRefusal(req: IncomingMessage): Promise<RateDecision | null>;
}

interface WebSocketLoginDeps {
  failures: FailedCredentialBudget;
  apiKeys: Pick<ApiKeyResolver, 'isCached'>;
  /** The upgrade request's client IP (limits/client-address.ts). */
  addressOf: (req: IncomingMessage) => string;
  logger: Logger;
}

export function createWebSocketLogins(deps: WebSocketLoginDeps): WebSocketLogins {
  return {
    async refuseUnchecked(req, credential) {
      if (!asksAuth(credential, deps.apiKeys)) return null;
      return deps.failures.spent(deps.addressOf(req)).catch((err: unknown) => {
        deps.logger.error({ err }, 'rate limiter failed; WebSocket login checked without the address budget');
        return null;
      });
    },
    async chargeRefusal(req) {
      try {
        const decision = await deps.failures.charge(deps.addressOf(req));
        return decision.allowed ? null : decision;
      } catch (err) {
        // Shared and insurance limiter both failed: the refusal stands, uncounted.
        deps.logger.error({ err }, 'rate limiter failed; WebSocket login failure not counted');
        return null;
      }
    },
  };
}
