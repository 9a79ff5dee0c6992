import { OAuthError } from '../oauth/oauth-error';
import { authorizationParam, type Params } from '../oauth/params';
import { OPENID_SCOPE } from '../oauth/scopes';

/** What an authorization request asks of the sign-in (OpenID Connect Core 1.0 §3.1.2.1). */
export interface AuthenticationRequirements {
  /** `nonce`, repeated in the ID token; kept only for `openid` requests. */
  nonce?: string;
  /** `prompt=none`: never show a page; answer `login_required` / `consent_required` instead. */
  promptNone?: true;
  /**
   * The oldest sign-in (ms since the epoch) that may answer the request: the request's own time for
   * `prompt=login` (sign in again even with a session), that time minus `max_age` seconds for `max_age`.
   */
  signedInSince?: number;
}

const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);

/**
 * `nonce`, `prompt` and `max_age` of an authorization request; throws OAuthError (redirected to the
 * client). `prompt=consent` needs nothing more: this server asks for consent on every request.
 * `select_account` is accepted and shows the sign-in as usual (one account per session).
 */
export function authenticationRequirements(params: Params, scopes: string[], now: number): AuthenticationRequirements {
  const nonce = authorizationParam(params, 'nonce');
  const prompt = authorizationParam(params, 'prompt');
  const maxAge = authorizationParam(params, 'max_age');
  const prompts = new Set((prompt ?? '').split(' ').filter(Boolean));
  for (const p of prompts) if (!PROMPTS.has(p)) throw new OAuthError('invalid_request', `prompt ${p} is not supported`);
  if (prompts.has('none') && prompts.size > 1)
    throw new OAuthError('invalid_request', 'prompt=none cannot be combined with other values');
  if (maxAge !== undefined && !/^\d{1,10}$/.test(maxAge))
    throw new OAuthError('invalid_request', 'max_age must be a non-negative integer (seconds)');
  const since = [
    ...(prompts.has('login') ? [now] : []),
    ...(maxAge !== undefined ? [now - Number(maxAge) * 1000] : []),
  ];
  return {
    ...(nonce !== undefined && scopes.includes(OPENID_SCOPE) ? { nonce } : {}),
    ...(prompts.has('none') ? { promptNone: true as const } : {}),
    ...(since.length ? { signedInSince: Math.max(...since) } : {}),
  };
}

/** Whether a sign-in session at `authTime` (ms) answers the request, or the person must sign in (again). */
export function signInSatisfies(requirements: AuthenticationRequirements, authTime: number): boolean {
  return requirements.signedInSince === undefined || authTime >= requirements.signedInSince;
}
