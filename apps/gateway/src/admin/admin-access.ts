import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@platform/logger';
import { credentialRefusal, publicRequestUrl } from '../auth/authenticate-middleware';
import { authenticate, type AuthenticateDeps, type AuthOutcome } from '../auth/authenticate';
import { readCredential, type Credential } from '../auth/credentials';
import { clientAddress } from '../limits/client-address';
import type { FailedCredentialBudget } from '../limits/failed-credentials';
import { sendEdgeError } from '../routing/edge-errors';
import { sessionToken } from './dashboard-session';
import '../auth/request-identity';

/**
 * The rule auth's administration API applies (docs/auth.md, "Administration API"): an access token
 * for this gateway that was granted the `admin` scope, held by an account with the ADMIN role. Auth
 * grants that scope only to such accounts, and a change of an account's roles or status revokes every
 * token it holds, so checking the token's revocation on each request keeps the role current.
 */
export const ADMIN_SCOPE = 'admin';
const ADMIN_ROLE = 'ADMIN';

export interface AdminAccessDeps {
  publicUrl: string;
  authDeps: AuthenticateDeps;
  failedCredentials: FailedCredentialBudget;
  logger: Logger;
}

/** An Authorization header wins; a browser without one sends the dashboard's session cookie. */
function requestCredential(req: Request): Credential {
  const headers = readCredential(req.headers);
  if (headers.kind !== 'none') return headers;
  const token = sessionToken(req);
  return token === undefined ? headers : { kind: 'jwt', token, scheme: 'Bearer' };
}

export type AdminCheck = (
  req: Request,
  res: Response,
  credential: Credential,
) => Promise<Extract<AuthOutcome, { ok: true }> | null>;

/**
 * Checks `credential` for the dashboard: null once it has answered the refusal itself, in OAuth's
 * error shape (RFC 6750 §3: 401 with a challenge, 403 `insufficient_scope`), charged to the client
 * address's budget for refused credentials like every other route's.
 */
export function adminCheck(deps: AdminAccessDeps): AdminCheck {
  const refuse = credentialRefusal('oauth', deps.failedCredentials, deps.logger);
  const audiences = [deps.publicUrl.replace(/\/$/, '')];
  return async (req, res, credential) => {
    const ip = clientAddress(req);
    const needs = {
      audiences,
      scope: ADMIN_SCOPE,
      credentialsRequired: true,
      method: req.method,
      url: publicRequestUrl(deps.publicUrl, req),
    };
    let outcome: AuthOutcome;
    try {
      outcome = await authenticate(credential, needs, deps.authDeps);
    } catch (err) {
      deps.logger.error({ err }, 'authentication failed unexpectedly');
      sendEdgeError(res, 'oauth', {
        status: 503,
        code: 'upstream_unavailable',
        message: 'authentication is temporarily unavailable',
      });
      return null;
    }
    if (!outcome.ok) {
      await refuse(res, ip, outcome.error);
      return null;
    }
    const { identity } = outcome;
    // A client's own token (client_credentials) may hold the admin scope, but the dashboard is for people.
    if (identity.method === 'api_key' || !identity.sub || !identity.roles.includes(ADMIN_ROLE)) {
      sendEdgeError(res, 'oauth', {
        status: 403,
        code: 'insufficient_scope',
        message: 'the queue dashboard is for accounts with the ADMIN role',
      });
      return null;
    }
    return outcome;
  };
}

/** Lets only administrators through (`adminCheck`), by Authorization header or session cookie. */
export function requireAdmin(check: AdminCheck) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const outcome = await check(req, res, requestCredential(req));
    if (!outcome) return;
    req.identity = outcome.identity;
    next();
  };
}
