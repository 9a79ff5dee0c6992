import { compactVerify, decodeProtectedHeader } from 'jose';
import { findClient } from '../clients/clients';
import type { Deps } from '../deps';
import { endSessionRequest } from '@platform/contracts';
import { formParams, type Params } from '../oauth/params';

/** A validated RP-initiated logout request: where to send the browser after signing out, if anywhere. */
export interface LogoutRequest {
  clientId?: string;
  postLogoutRedirectUri?: string;
  state?: string;
}

type LogoutValidation = { ok: true; request: LogoutRequest } | { ok: false; message: string };

/**
 * The client an `id_token_hint` was issued to, when it is an ID token this server signed (an expired
 * one too: OpenID Connect RP-Initiated Logout 1.0 §2 asks the OP to accept those). Not an access token
 * (`typ: at+jwt`), not another issuer's token.
 */
async function hintedClient(deps: Deps, hint: string): Promise<string | undefined> {
  try {
    const header = decodeProtectedHeader(hint);
    if (header.alg !== 'ES256' || header.typ !== 'JWT' || typeof header.kid !== 'string') return undefined;
    const key = await deps.keys.publicKey(header.kid);
    if (!key) return undefined;
    const { payload } = await compactVerify(hint, key, { algorithms: ['ES256'] });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as { iss?: unknown; aud?: unknown; sub?: unknown };
    if (claims.iss !== deps.config.PUBLIC_URL || typeof claims.aud !== 'string' || typeof claims.sub !== 'string')
      return undefined;
    return claims.aud;
  } catch {
    return undefined;
  }
}

/**
 * OpenID Connect RP-Initiated Logout 1.0 §2–§3: `id_token_hint`, `client_id`, `post_logout_redirect_uri`
 * and `state`. The redirect URI must exactly match one registered for the client (named by `client_id`
 * or by the hint's `aud`), else the request is refused on a page and nobody is redirected anywhere.
 */
export async function validateLogoutRequest(deps: Deps, params: Params): Promise<LogoutValidation> {
  let hint: string | undefined;
  let clientId: string | undefined;
  let redirectUri: string | undefined;
  let state: string | undefined;
  try {
    ({
      id_token_hint: hint,
      client_id: clientId,
      post_logout_redirect_uri: redirectUri,
      state,
    } = formParams(endSessionRequest, params));
  } catch {
    return { ok: false, message: 'The sign-out request repeats a parameter or one is too long.' };
  }
  if (hint !== undefined) {
    const audience = await hintedClient(deps, hint);
    if (!audience) return { ok: false, message: 'id_token_hint is not an ID token issued here.' };
    if (clientId !== undefined && clientId !== audience)
      return { ok: false, message: 'client_id is not the client the id_token_hint was issued to.' };
    clientId = audience;
  }
  if (redirectUri === undefined) return { ok: true, request: clientId !== undefined ? { clientId } : {} };
  if (clientId === undefined)
    return { ok: false, message: 'post_logout_redirect_uri needs client_id or id_token_hint to name the client.' };
  const client = await findClient(deps.clients, clientId);
  if (!client) return { ok: false, message: 'Unknown client.' };
  if (!(client.postLogoutRedirectUris ?? []).includes(redirectUri))
    return { ok: false, message: 'post_logout_redirect_uri is not registered for this client.' };
  return {
    ok: true,
    request: { clientId, postLogoutRedirectUri: redirectUri, ...(state !== undefined ? { state } : {}) },
  };
}

/** Where the browser goes once signed out: the validated URI with `state` added. */
export function postLogoutRedirect(request: LogoutRequest): string | undefined {
  if (!request.postLogoutRedirectUri) return undefined;
  const url = new URL(request.postLogoutRedirectUri);
  if (request.state !== undefined) url.searchParams.set('state', request.state);
  return url.href;
}
