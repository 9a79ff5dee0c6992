import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Logger } from '@platform/logger';
import { sendEdgeError } from '../routing/edge-errors';
import { ADMIN_SCOPE, type AdminCheck } from './admin-access';
import {
  clearSignInCookie,
  readCookie,
  sessionToken,
  setSessionCookie,
  setSignInCookie,
  SIGN_IN_COOKIE,
  type CookieScope,
} from './dashboard-session';

interface DashboardSignInDeps {
  /** Where the dashboard is served (`/admin/queues`). */
  path: string;
  publicUrl: string;
  /** The authorization server as the gateway reaches it (the code is redeemed there, not through the edge). */
  authUrl: string;
  /** The public client auth registers for the dashboard (`QUEUE_DASHBOARD_CLIENT_ID`). */
  clientId: string;
  check: AdminCheck;
  logger: Logger;
  timeoutMs: number;
}

/** Long enough to sign in (and pass a second factor someday), short enough that an abandoned one goes. */
const SIGN_IN_SECONDS = 600;

const base64url = (bytes: Buffer) => bytes.toString('base64url');

function sameValue(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A browser's way in: the authorization code flow with PKCE (RFC 6749 §4.1, RFC 7636) as the dashboard's
 * own public client, for the `admin` scope. The gateway redeems the code itself and keeps the access token
 * in the dashboard's HttpOnly session cookie (dashboard-session.ts), so no script ever holds it. `state`
 * and the PKCE verifier wait in a short-lived cookie sent to the callback only.
 */
export function dashboardSignIn(deps: DashboardSignInDeps): {
  routes: Router;
  redirectBrowsers: (req: Request, res: Response, next: NextFunction) => void;
} {
  const base = deps.publicUrl.replace(/\/$/, '');
  const redirectUri = `${base}${deps.path}/callback`;
  const session: CookieScope = { path: deps.path, publicUrl: deps.publicUrl };
  const pending: CookieScope = { path: `${deps.path}/callback`, publicUrl: deps.publicUrl };
  const routes = express.Router();

  routes.get('/sign-in', (_req, res) => {
    const state = base64url(randomBytes(24));
    const verifier = base64url(randomBytes(32));
    const challenge = base64url(createHash('sha256').update(verifier).digest());
    const authorize = new URL(`${base}/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: deps.clientId,
      redirect_uri: redirectUri,
      scope: ADMIN_SCOPE,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    setSignInCookie(res, pending, `${state}.${verifier}`, SIGN_IN_SECONDS);
    res.redirect(302, authorize.toString());
  });

  routes.get('/callback', async (req, res) => {
    const saved = readCookie(req, SIGN_IN_COOKIE)?.split('.');
    clearSignInCookie(res, pending);
    const { code, state, error } = req.query;
    if (!saved || saved.length !== 2 || typeof state !== 'string' || !sameValue(state, saved[0]!)) {
      sendEdgeError(res, 'oauth', {
        status: 400,
        code: 'invalid_request',
        message: 'no sign-in of this browser is waiting for this answer; start again at the dashboard',
      });
      return;
    }
    if (typeof error === 'string') {
      sendEdgeError(res, 'oauth', {
        status: 403,
        code: 'insufficient_scope',
        message: `the sign-in ended without access: ${error.slice(0, 100)}`,
      });
      return;
    }
    if (typeof code !== 'string' || code.length === 0 || code.length > 2048) {
      sendEdgeError(res, 'oauth', {
        status: 400,
        code: 'invalid_request',
        message: 'the authorization server sent no code',
      });
      return;
    }
    let token: string | undefined;
    try {
      const answer = await fetch(`${deps.authUrl.replace(/\/$/, '')}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: deps.clientId,
          code_verifier: saved[1]!,
        }).toString(),
        signal: AbortSignal.timeout(deps.timeoutMs),
      });
      const body = (await answer.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
      if (answer.ok && typeof body.access_token === 'string') token = body.access_token;
      else
        deps.logger.warn(
          { status: answer.status, error: body.error },
          'queue dashboard sign-in: the code was not redeemed',
        );
    } catch (err) {
      deps.logger.warn({ err: String(err) }, 'queue dashboard sign-in: the authorization server did not answer');
      sendEdgeError(res, 'oauth', {
        status: 503,
        code: 'upstream_unavailable',
        message: 'the authorization server is temporarily unavailable',
      });
      return;
    }
    if (!token) {
      sendEdgeError(res, 'oauth', {
        status: 400,
        code: 'invalid_request',
        message: 'the authorization code could not be redeemed; start again at the dashboard',
      });
      return;
    }
    // Only an administrator's token becomes a session; anyone else is refused here (403), with no cookie.
    const outcome = await deps.check(req, res, { kind: 'jwt', token, scheme: 'Bearer' });
    if (!outcome) return;
    setSessionCookie(res, session, token, Math.max(0, (outcome.expiresAt ?? 0) - Math.floor(Date.now() / 1000)));
    res.redirect(302, `${deps.path}/`);
  });

  // A page load without any credential is sent to sign in; scripts and API calls keep their 401.
  const redirectBrowsers = (req: Request, res: Response, next: NextFunction) => {
    const anonymous = !req.headers.authorization && !req.headers['xi-api-key'] && sessionToken(req) === undefined;
    if (req.method === 'GET' && anonymous && req.accepts(['json', 'html']) === 'html')
      res.redirect(302, `${deps.path}/sign-in`);
    else next();
  };
  return { routes, redirectBrowsers };
}
