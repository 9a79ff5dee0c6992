import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express, { type Express, type Router } from 'express';
import { readCredential } from '../auth/credentials';
import { sendEdgeError } from '../routing/edge-errors';
import { adminCheck, requireAdmin, type AdminAccessDeps } from './admin-access';
import { clearSessionCookie, setSessionCookie } from './dashboard-session';
import { dashboardSignIn } from './dashboard-sign-in';

/** Where the gateway serves the dashboard (before auth's `/admin/*`, which it is not part of). */
export const DASHBOARD_PATH = '/admin/queues';

interface QueueDashboardDeps extends AdminAccessDeps {
  queues: Queue[];
  /** Browser sign-in (dashboard-sign-in.ts) as auth's dashboard client; absent: header tokens and POST /session only. */
  signIn?: { authUrl: string; clientId: string; timeoutMs: number };
}

/**
 * bull-board's page, assets and JSON API come from the npm packages. Its page links a web font from
 * Google's CDN: the policy allows only this origin, so the browser never makes that request (the page
 * falls back to local fonts). No frames, no referrer, nothing cached: the answers show queued texts.
 */
const DASHBOARD_HEADERS = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    // bull-board's page and components set inline styles.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * The synthesis queues' dashboard at `/admin/queues` (docs/gateway.md, "Queue dashboard"), for ADMIN
 * accounts only: every path under it, the page's own scripts and styles too, answers anyone else 401/403.
 * Read-only: a synthesis job's client is gone by the time anyone could retry or add it by hand.
 */
export function queueDashboardRoutes(deps: QueueDashboardDeps): Router {
  const board = new ExpressAdapter();
  board.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: deps.queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'Synthesis queues' } },
  });

  const check = adminCheck(deps);
  const cookie = { path: DASHBOARD_PATH, publicUrl: deps.publicUrl };
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set(DASHBOARD_HEADERS);
    next();
  });
  // A browser cannot add an Authorization header to a page load: the token is handed over once and kept
  // in the dashboard's cookie (dashboard-session.ts). Only a Bearer token: a DPoP-bound one is useless
  // without a fresh proof for each request (RFC 9449 §7), which a cookie cannot carry.
  router.post('/session', async (req, res) => {
    const credential = readCredential(req.headers);
    if (credential.kind === 'jwt' && credential.scheme === 'DPoP') {
      sendEdgeError(res, 'oauth', {
        status: 400,
        code: 'invalid_request',
        message: 'a DPoP-bound token cannot be kept in a cookie; send its proof with each request instead',
      });
      return;
    }
    const outcome = await check(req, res, credential);
    if (!outcome) return;
    if (credential.kind !== 'jwt') {
      // Only access tokens carry the admin scope; an API key never reaches here.
      sendEdgeError(res, 'oauth', { status: 400, code: 'invalid_request', message: 'send an access token' });
      return;
    }
    const lifetime = Math.max(0, (outcome.expiresAt ?? 0) - Math.floor(Date.now() / 1000));
    setSessionCookie(res, cookie, credential.token, lifetime);
    res.status(204).end();
  });
  router.delete('/session', (_req, res) => {
    clearSessionCookie(res, cookie);
    res.status(204).end();
  });
  if (deps.signIn) {
    const signIn = dashboardSignIn({
      ...deps.signIn,
      path: DASHBOARD_PATH,
      publicUrl: deps.publicUrl,
      check,
      logger: deps.logger,
    });
    router.use(signIn.routes);
    router.use(signIn.redirectBrowsers);
  }
  router.use(requireAdmin(check));
  const boardApp = board.getRouter() as Express;
  // bull-board's own express app: like the gateway's, it does not name its framework.
  boardApp.disable('x-powered-by');
  router.use(boardApp);
  return router;
}
