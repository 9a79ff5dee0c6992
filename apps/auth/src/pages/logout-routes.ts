import { Router, type Request, type Response } from 'express';
import type { Deps } from '../deps';
import { formBody, paramsOf } from '../oauth/params';
import { hidden, sendPage } from './html';
import { csrfToken, csrfValid, endSession, sessionAccount } from './session';

function confirmPage(deps: Deps, req: Request, res: Response, status: number, intro: string): void {
  const csrf = csrfToken(deps, req, res);
  sendPage(res, status, 'Sign out', `<p>${intro}</p>
<form method="post" action="/logout">${hidden('csrf', csrf)}<button type="submit">Sign out</button></form>`);
}

/**
 * `GET /logout` shows a sign-out button; `POST /logout` (with the form's CSRF token) ends the sign-in
 * session: its server-side record is deleted and its cookie cleared. A GET never signs out, so a link
 * or image on another site cannot sign a person out; tokens already issued to clients are not revoked
 * (they have their own lifetimes and POST /revoke).
 */
export function logoutRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/logout', async (req, res) => {
    const account = await sessionAccount(deps, req);
    confirmPage(deps, req, res, 200, account ? 'Sign out of this authorization server in this browser?' : 'You are not signed in.');
  });
  router.post('/logout', formBody(), async (req, res) => {
    const params = paramsOf(req.body);
    if (!csrfValid(req, params.csrf)) return confirmPage(deps, req, res, 403, 'Your form expired. Please try again.');
    await endSession(deps, req, res);
    sendPage(res, 200, 'Signed out', '<p>You are signed out.</p>');
  });
  return router;
}
