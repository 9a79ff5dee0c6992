import type { ClientDoc } from '../clients/client-model';
import type { Deps } from '../deps';
import type { CodeRecord } from '../grants/authorization-code';
import { authenticationRequirements, type AuthenticationRequirements } from '../oidc/authentication-request';
import { checkFapi2AuthorizationRequest } from '../fapi/fapi2-profile';
import { OAuthError } from './oauth-error';
import { authorizationParam, scopeList, type Params } from './params';
import { audienceFor, scopesFor } from './resources';

/** An authorization request once validated: what the code will grant, and what the sign-in must satisfy. */
export interface PendingRequest
  extends Omit<CodeRecord, 'sub' | 'authTime'>, Omit<AuthenticationRequirements, 'nonce'> {
  state?: string;
  /** OpenID Connect's `login_hint`: prefills the sign-in page's email; never part of the code. */
  loginHint?: string;
}

/**
 * Everything of an authorization request (RFC 6749 §4.1.1, RFC 7636, RFC 8707, RFC 9449 §10) but the
 * client and its redirect_uri, which the caller has checked: /authorize redirects these errors to the
 * client, /par (RFC 9126) answers them as JSON. Throws OAuthError.
 */
export function validateRequest(deps: Deps, client: ClientDoc, params: Params, redirectUri: string): PendingRequest {
  const responseType = authorizationParam(params, 'response_type');
  if (responseType !== 'code') throw new OAuthError('unsupported_response_type', 'response_type must be code');
  if (!client.grantTypes.includes('authorization_code'))
    throw new OAuthError('unauthorized_client', 'this client may not use the authorization code flow');
  const challenge = authorizationParam(params, 'code_challenge');
  const method = authorizationParam(params, 'code_challenge_method');
  if (challenge === undefined) {
    if (client.type === 'public')
      throw new OAuthError('invalid_request', 'PKCE code_challenge is required for public clients');
    if (method !== undefined) throw new OAuthError('invalid_request', 'code_challenge_method without code_challenge');
  } else {
    if (method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
    if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) throw new OAuthError('invalid_request', 'code_challenge is malformed');
  }
  checkFapi2AuthorizationRequest(client, challenge);
  const dpopJkt = authorizationParam(params, 'dpop_jkt');
  const scopes = scopesFor(client.scopes, scopeList(authorizationParam(params, 'scope')));
  const audience = audienceFor(client, authorizationParam(params, 'resource') ?? [], deps.config.PUBLIC_URL);
  const loginHint = authorizationParam(params, 'login_hint');
  return {
    ...authenticationRequirements(params, scopes, Date.now()),
    clientId: client._id,
    redirectUri,
    scopes,
    audience,
    ...(challenge ? { codeChallenge: challenge } : {}),
    ...(dpopJkt ? { dpopJkt } : {}),
    ...(loginHint ? { loginHint } : {}),
  };
}
