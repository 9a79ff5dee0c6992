import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@platform/logger';
import { REVOKED_JTI_PREFIX } from '@platform/oauth-resource';
import { clientAddress } from '../limits/client-address';
import {
  addressSpentMessage,
  asksAuth,
  isCredentialFailure,
  type FailedCredentialBudget,
} from '../limits/failed-credentials';
import { setRateLimitHeaders, tooManyRequests } from '../limits/limit-middleware';
import type { RateDecision } from '../limits/rate-limiter';
import { sendEdgeError, type EdgeError, type Surface } from '../routing/edge-errors';
import { ANONYMOUS, authenticate, type AuthenticateDeps, type RouteNeeds } from './authenticate';
import { readCredential } from './credentials';
import './request-identity';

/** `skip` lets a route take everyone as anonymous (credentials are not even looked at). */
export type NeedsFor = (req: Request) => RouteNeeds | 'skip';

function addressSpent(decision: RateDecision): EdgeError {
  return tooManyRequests(addressSpentMessage(decision), decision.retryAfter);
}

/** What a refused credential costs (refuse): charged to the client IP's budget, 429 once that is spent. */
export type RefuseCredential = (res: Response, ip: string, error: EdgeError) => Promise<void>;

/**
 * Answers a refusal in the surface's shape. A 400/401 is charged to the client IP's budget
 * (limits/failed-credentials.ts) and carries its X-RateLimit-* headers; once that budget is spent
 * it becomes a 429.
 */
export function credentialRefusal(
  surface: Surface,
  failures: FailedCredentialBudget,
  logger: Logger,
): RefuseCredential {
  return async (res, ip, error) => {
    if (!isCredentialFailure(error.status)) {
      sendEdgeError(res, surface, error);
      return;
    }
    let decision: RateDecision;
    try {
      decision = await failures.charge(ip);
    } catch (err) {
      // Shared and insurance limiter both failed: the refusal stands, uncounted.
      logger.error({ err }, 'rate limiter failed; credential failure not counted');
      sendEdgeError(res, surface, error);
      return;
    }
    setRateLimitHeaders(res, decision);
    sendEdgeError(res, surface, decision.allowed ? error : addressSpent(decision));
  };
}

/**
 * Sets `req.identity` or answers the route's interface's 400/401/403/503 (`credentialRefusal`);
 * once the IP's budget is spent, an API key this replica would have to ask auth about is not
 * asked about at all. A token verified with its revocation deferred (`RouteNeeds.revocation`)
 * leaves `req.tokenRevocation` for the plan limiter to check.
 */
export function authenticateRequests(
  surface: Surface,
  needsFor: NeedsFor,
  deps: AuthenticateDeps,
  failures: FailedCredentialBudget,
  logger: Logger,
) {
  const refuse = credentialRefusal(surface, failures, logger);

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const needs = needsFor(req);
    if (needs === 'skip') {
      req.identity = ANONYMOUS;
      next();
      return;
    }
    const ip = clientAddress(req);
    try {
      const credential = readCredential(req.headers);
      if (asksAuth(credential, deps.apiKeys)) {
        const spent = await failures.spent(ip).catch((err: unknown) => {
          logger.error({ err }, 'rate limiter failed; API key checked without the address budget');
          return null;
        });
        if (spent) {
          setRateLimitHeaders(res, spent);
          sendEdgeError(res, surface, addressSpent(spent));
          return;
        }
      }
      const outcome = await authenticate(credential, needs, deps);
      if (!outcome.ok) {
        await refuse(res, ip, outcome.error);
        return;
      }
      req.identity = outcome.identity;
      if (outcome.revocationDeferred && outcome.tokenId !== undefined && credential.kind === 'jwt') {
        req.tokenRevocation = { key: `${REVOKED_JTI_PREFIX}${outcome.tokenId}`, scheme: credential.scheme };
      }
      next();
    } catch (err) {
      logger.error({ err }, 'authentication failed unexpectedly');
      sendEdgeError(res, surface, {
        status: 503,
        code: 'upstream_unavailable',
        message: 'authentication is temporarily unavailable',
      });
    }
  };
}

/** The URL as the client addressed it: the public origin plus the path (DPoP `htu`). */
export function publicRequestUrl(publicUrl: string, req: Request): string {
  const path = req.originalUrl.split('?')[0] ?? '/';
  // Concatenated, not resolved, so `//host/x` cannot point the URL at another origin.
  return `${publicUrl.replace(/\/$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}
