import { createHash, type KeyObject } from 'node:crypto';
import type { AccountDoc } from '../accounts/account-model';
import type { Deps } from '../deps';
import { EMAIL_SCOPE, PROFILE_SCOPE } from '../oauth/scopes';
import { signEs256 } from '../tokens/jws';

/**
 * The claims about the account that its scopes release (OpenID Connect Core 1.0 §5.4), the same in
 * the ID token and at /userinfo. `profile`: `name` only — an account has no other profile fields, and
 * no `preferred_username` (the platform has no user names; the email is not one). `email`: `email`
 * and `email_verified`, always false: the platform never verifies that a person owns the address.
 */
export function accountClaims(account: Pick<AccountDoc, 'name' | 'email'>, scopes: string[]): Record<string, unknown> {
  return {
    ...(scopes.includes(PROFILE_SCOPE) ? { name: account.name } : {}),
    ...(scopes.includes(EMAIL_SCOPE) ? { email: account.email, email_verified: false } : {}),
  };
}

/** `at_hash` (Core §3.1.3.6): the left half of the SHA-256 of the access token's ASCII, base64url (ES256 → SHA-256). */
function atHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}

export interface IdTokenInput {
  sub: string;
  clientId: string;
  scopes: string[];
  account: Pick<AccountDoc, 'name' | 'email'>;
  /** When the person signed in (seconds); kept unchanged on refresh (Core §12.2). */
  authTime?: number;
  /** From the authorization request; never on refresh (Core §12.2: the new ID token should not carry one). */
  nonce?: string;
  /** The access token issued alongside. */
  accessToken: string;
  /** Back-Channel Logout 1.0 §2.1: the sign-in session's `sid`, for clients that take logout tokens. */
  sid?: string;
}

/**
 * An ID token (Core §2), signed ES256 with the current signing key, so RPs verify it with the same
 * `jwks_uri` as access tokens. `aud` is the client and `azp` names it too; lifetime ACCESS_TOKEN_TTL.
 */
export async function issueIdToken(deps: Pick<Deps, 'config' | 'keys'>, input: IdTokenInput): Promise<string> {
  const { kid, privateKey } = await deps.keys.current();
  const iat = Math.floor(Date.now() / 1000);
  return signEs256(
    { alg: 'ES256', typ: 'JWT', kid },
    {
      iss: deps.config.PUBLIC_URL,
      sub: input.sub,
      aud: input.clientId,
      azp: input.clientId,
      iat,
      exp: iat + deps.config.ACCESS_TOKEN_TTL,
      ...(input.authTime !== undefined ? { auth_time: input.authTime } : {}),
      ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
      ...(input.sid !== undefined ? { sid: input.sid } : {}),
      at_hash: atHash(input.accessToken),
      ...accountClaims(input.account, input.scopes),
    },
    privateKey as KeyObject,
  );
}
