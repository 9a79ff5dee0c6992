import { Router, type Request, type Response } from 'express';
import type { Deps } from '../deps';
import { formBody, paramsOf, type Params } from '../oauth/params';
import { postLogoutRedirect, validateLogoutRequest, type LogoutRequest } from '../oidc/end-session';
import { escapeHtml, hidden, sendPage } from './html';
import { sessionEnded } from '../backchannel-logout/session-clients';
import { csrfToken, csrfValid, currentSession, endSession, sessionAccount } from './session';

function confirmPage(
  deps: Deps,
  req: Request,
  res: Response,
  status: number,
  intro: string,
  request: LogoutRequest = {},
): void {
  const csrf = csrfToken(deps, req, res);
  const fields =
    (request.clientId !== undefined ? hidden('client_id', request.clientId) : '') +
    (request.postLogoutRedirectUri !== undefined
      ? hidden('post_logout_redirect_uri', request.postLogoutRedirectUri)
      : '') +
    (request.state !== undefined ? hidden('state', request.state) : '');
  // The answer to the form redirects to the client's post_logout_redirect_uri, which browsers check against form-action.
  const target = request.postLogoutRedirectUri ? [new URL(request.postLogoutRedirectUri).origin] : [];
  sendPage(
    res,
    status,
    'Sign out',
    `<p>${intro}</p>
<form method="post" action="/logout">${hidden('csrf', csrf)}${fields}<button type="submit" class="primary">Sign out</button></form>`,
    target.filter((o) => o !== 'null'),
  );
}

/** The confirmation page for a sign-out request (the RP's, or a person's visit). */
async function showConfirm(deps: Deps, req: Request, res: Response, params: Params): Promise<void> {
  const checked = await validateLogoutRequest(deps, params);
  if (!checked.ok)
    return sendPage(res, 400, 'Sign-out error', `<p class="error" role="alert">${escapeHtml(checked.message)}</p>`);
  const account = await sessionAccount(deps, req);
  confirmPage(
    deps,
    req,
    res,
    200,
    account ? 'Sign out of this authorization server in this browser?' : 'You are not signed in.',
    checked.request,
  );
}

/**
 * `/logout` is the OpenID Connect `end_session_endpoint` (RP-Initiated Logout 1.0): a GET, or a POST
 * from a client's page without our form's CSRF field, asks to sign out (`id_token_hint`, `client_id`,
 * `post_logout_redirect_uri`, `state`) and shows a sign-out button; the button's POST (with the form's
 * CSRF token) ends the sign-in session — its server-side record is deleted and its cookie cleared —
 * then redirects to the registered `post_logout_redirect_uri` with `state`, if the request named one.
 * Nothing signs out without that button, so a link or image on another site cannot sign a person out;
 * tokens already issued to clients are not revoked (they have their own lifetimes and POST /revoke), but
 * clients with a `backchannel_logout_uri` that had a session with this one are sent a logout token.
 */
export function logoutRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/logout', (req, res) => showConfirm(deps, req, res, paramsOf(req.query)));
  router.post('/logout', formBody(), async (req, res) => {
    const params = paramsOf(req.body);
    if (params.csrf === undefined) return showConfirm(deps, req, res, params);
    if (!csrfValid(req, params.csrf)) return confirmPage(deps, req, res, 403, 'Your form expired. Please try again.');
    // The form's own fields, checked again: only a registered redirect is ever followed.
    const checked = await validateLogoutRequest(deps, {
      client_id: params.client_id,
      post_logout_redirect_uri: params.post_logout_redirect_uri,
      state: params.state,
    });
    const session = await currentSession(deps, req);
    await endSession(deps, req, res);
    // Back-Channel Logout 1.0 §2.7: every client that had a session with this one is told (by the outbox).
    if (session) await sessionEnded(deps, session.id, session.account._id);
    const redirect = checked.ok ? postLogoutRedirect(checked.request) : undefined;
    if (redirect) {
      res.setHeader('Cache-Control', 'no-store');
      return res.redirect(303, redirect);
    }
    sendPage(res, 200, 'Signed out', '<p>You are signed out.</p>');
  });
  return router;
}
