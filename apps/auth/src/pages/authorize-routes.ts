import { Router, type Request, type Response } from 'express';
import { OAuthError } from '../oauth/oauth-error';
import type { ClientDoc } from '../clients/client-model';
import { findClient } from '../clients/clients';
import { randomToken } from '../crypto/secrets';
import type { Deps } from '../deps';
import { sessionClaim } from '../backchannel-logout/logout-token';
import { recordSessionClient } from '../backchannel-logout/session-clients';
import { codeLifetime } from '../fapi/fapi2-profile';
import { storeCode } from '../grants/authorization-code';
import { validateRequest, type PendingRequest } from '../oauth/authorization-request';
import { authorizationParams } from '../oauth/authorization-params';
import { authorizationParam, formBody, paramsOf, type Params } from '../oauth/params';
import { signInSatisfies } from '../oidc/authentication-request';
import { escapeHtml, hidden, scopeList, sendPage } from './html';
import { consentCovers, rememberConsent } from '../oidc/remembered-consent';
import { csrfToken, csrfValid, currentSession, loginRedirect, type SignInSession } from './session';

const REQUEST_TTL = 600;
const requestKey = (id: string) => `auth:authz-request:${id}`;

function errorPage(res: Response, status: number, message: string): void {
  sendPage(res, status, 'Authorization error', `<p class="error" role="alert">${escapeHtml(message)}</p>`);
}

/** RFC 6749 §4.1.2.1 redirect with `error`, `state` and RFC 9207 `iss`. */
function redirectWith(
  res: Response,
  deps: Deps,
  redirectUri: string,
  values: Record<string, string | undefined>,
): void {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(values)) if (v !== undefined) url.searchParams.set(k, v);
  url.searchParams.set('iss', deps.config.PUBLIC_URL);
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, url.href);
}

/** The CSP source of a redirect_uri: its origin, or its scheme for a private-use scheme (RFC 8252 §7.1). */
function redirectSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin === 'null' ? url.protocol : url.origin;
}

function consentPage(
  deps: Deps,
  req: Request,
  res: Response,
  id: string,
  client: ClientDoc,
  pending: PendingRequest,
  email: string,
): void {
  const csrf = csrfToken(deps, req, res);
  // The decision redirects to the client's redirect_uri, which browsers check against form-action.
  sendPage(
    res,
    200,
    `Allow ${client.name}?`,
    `<p>Signed in as <strong>${escapeHtml(email)}</strong>.</p>
<p><strong>${escapeHtml(client.name)}</strong> asks to:</p>${scopeList(pending.scopes)}
<p class="muted">at ${pending.audience.map(escapeHtml).join(', ')}</p>
<form method="post" action="/authorize/decision">
${hidden('csrf', csrf)}${hidden('request', id)}
<div class="actions"><button type="submit" class="primary" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
    [redirectSource(pending.redirectUri)],
  );
}

/** Issues the code for a decided request (its `auth_time` is the session's sign-in) and sends the browser back with it. */
async function redirectWithCode(
  res: Response,
  deps: Deps,
  pending: PendingRequest,
  session: SignInSession,
): Promise<void> {
  const code = randomToken('ac_');
  const { state, promptNone: _none, signedInSince: _since, loginHint: _hint, ...record } = pending;
  const lifetime = codeLifetime(deps.config.AUTHORIZATION_CODE_TTL, await findClient(deps.clients, pending.clientId));
  await storeCode(
    deps,
    code,
    {
      ...record,
      sub: session.account._id,
      authTime: Math.floor(session.authTime / 1000),
      sid: sessionClaim(session.id),
    },
    lifetime,
  );
  // The client now has a session with this one: its end sends it a back-channel logout.
  await recordSessionClient(deps, { id: session.id, accountId: session.account._id }, pending.clientId);
  redirectWith(res, deps, pending.redirectUri, { code, state });
}

/**
 * `GET /authorize` → sign-in (if needed) → consent → redirect with `code`. Errors about the client or
 * redirect_uri are shown on a page and never redirected (RFC 6749 §4.1.2.1); the rest are redirected.
 */
export function authorizeRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/authorize', async (req, res) => {
    const outer = paramsOf(req.query);
    let clientId: string | undefined;
    try {
      clientId = authorizationParam(outer, 'client_id');
    } catch {
      return errorPage(res, 400, 'The request repeats client_id or redirect_uri.');
    }
    if (!clientId) return errorPage(res, 400, 'client_id is missing.');
    const client = await findClient(deps.clients, clientId);
    if (!client) return errorPage(res, 400, 'Unknown client.');
    // A pushed request or a request object decides the redirect_uri: until it is read and verified there is
    // none to redirect an error to, so these errors are shown on the page.
    let params: Params;
    let redirectUri: string | undefined;
    try {
      params = await authorizationParams(deps, client, outer, '/authorize');
      redirectUri = authorizationParam(params, 'redirect_uri');
    } catch (err) {
      if (err instanceof OAuthError) return errorPage(res, 400, `${err.error}: ${err.description}`);
      throw err;
    }
    if (!redirectUri || !client.redirectUris.includes(redirectUri))
      return errorPage(res, 400, 'redirect_uri is missing or not registered for this client.');
    let state: string | undefined;
    let pending: PendingRequest;
    try {
      state = authorizationParam(params, 'state');
      pending = { ...validateRequest(deps, client, params, redirectUri), ...(state !== undefined ? { state } : {}) };
    } catch (err) {
      if (err instanceof OAuthError)
        return redirectWith(res, deps, redirectUri, {
          error: err.error,
          error_description: err.description,
          state: typeof params.state === 'string' ? params.state.slice(0, 1000) : undefined,
        });
      throw err;
    }
    if (pending.promptNone) {
      // OpenID Connect Core 1.0 §3.1.2.6: no page may be shown. A code only for a session that
      // answers the request and has consented to all of it for this client already.
      const session = await currentSession(deps, req);
      if (!session || !signInSatisfies(pending, session.authTime))
        return redirectWith(res, deps, redirectUri, {
          error: 'login_required',
          error_description: 'the person is not signed in',
          state,
        });
      if (!(await consentCovers(deps, session.id, client._id, pending)))
        return redirectWith(res, deps, redirectUri, {
          error: 'consent_required',
          error_description: 'the person has to consent on a page',
          state,
        });
      return redirectWithCode(res, deps, pending, session);
    }
    const id = randomToken('', 18);
    await deps.redis.set(requestKey(id), JSON.stringify(pending), 'EX', REQUEST_TTL);
    res.redirect(303, `/authorize/continue?request=${id}`);
  });

  router.get('/authorize/continue', async (req, res) => {
    const id =
      typeof req.query.request === 'string' && /^[A-Za-z0-9_-]{24}$/.test(req.query.request)
        ? req.query.request
        : undefined;
    const raw = id ? await deps.redis.get(requestKey(id)) : null;
    if (!id || !raw)
      return errorPage(res, 400, 'This authorization request expired or is unknown. Start again from the application.');
    const pending = JSON.parse(raw) as PendingRequest;
    const session = await currentSession(deps, req);
    // No session, or one older than prompt=login / max_age allow: sign in (again) first.
    if (!session || !signInSatisfies(pending, session.authTime))
      return res.redirect(303, loginRedirect(`/authorize/continue?request=${id}`, pending.loginHint));
    const { account } = session;
    const client = await findClient(deps.clients, pending.clientId);
    if (!client) return errorPage(res, 400, 'Unknown client.');
    consentPage(deps, req, res, id, client, pending, account.email);
  });

  router.post('/authorize/decision', formBody(), async (req, res) => {
    const params = paramsOf(req.body);
    if (!csrfValid(req, params.csrf))
      return errorPage(res, 403, 'Your form expired. Start again from the application.');
    const session = await currentSession(deps, req);
    if (!session) return errorPage(res, 401, 'You are not signed in. Start again from the application.');
    const id =
      typeof params.request === 'string' && /^[A-Za-z0-9_-]{24}$/.test(params.request) ? params.request : undefined;
    // GETDEL: a request is decided once, even if the form is submitted twice.
    const raw = id ? await deps.redis.getdel(requestKey(id)) : null;
    if (!raw) return errorPage(res, 400, 'This authorization request expired or was already answered.');
    const pending = JSON.parse(raw) as PendingRequest;
    if (!signInSatisfies(pending, session.authTime))
      return errorPage(res, 401, 'Please sign in again. Start again from the application.');
    if (params.decision !== 'approve') {
      return redirectWith(res, deps, pending.redirectUri, {
        error: 'access_denied',
        error_description: 'the user denied the request',
        state: pending.state,
      });
    }
    await rememberConsent(deps, session.id, pending.clientId, pending);
    await redirectWithCode(res, deps, pending, session);
  });

  return router;
}
