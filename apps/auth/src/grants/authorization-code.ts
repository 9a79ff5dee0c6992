import { authorizationCodeForm } from '@platform/oauth-grants';
import { createHash } from 'node:crypto';
import { OAuthError } from '../oauth/oauth-error';
import { sha256 } from '../crypto/secrets';
import type { Deps } from '../deps';
import { narrowAudience } from '../oauth/resources';
import { OPENID_SCOPE } from '../oauth/scopes';
import { revokeFamily } from '../tokens/refresh-tokens';
import { revokeAccessToken } from '../tokens/revocation';
import { defineGrant, type GrantHandler } from './grant-descriptor';
import { activeAccount, issueGrantTokens, withIdToken } from './grant-steps';

/** What /authorize granted, kept in Redis under the code's hash until it is redeemed once. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  sub: string;
  scopes: string[];
  audience: string[];
  codeChallenge?: string;
  /** RFC 9449 §10: the DPoP key the code is bound to (`dpop_jkt` at /authorize). */
  dpopJkt?: string;
  /** OpenID Connect: the authorization request's `nonce`, repeated in the ID token. */
  nonce?: string;
  /** OpenID Connect: when the person signed in (seconds), the ID token's `auth_time`. */
  authTime?: number;
  /** Back-Channel Logout 1.0: the sign-in session's `sid` (backchannel-logout/logout-token.ts). */
  sid?: string;
}

const codeKey = (hash: string) => `auth:code:${hash}`;
const usedKey = (hash: string) => `auth:code-used:${hash}`;

/** Keeps the code `lifetimeSeconds` (AUTHORIZATION_CODE_TTL unless a client profile shortens it: fapi/fapi2-profile.ts). */
export async function storeCode(
  deps: Deps,
  code: string,
  record: CodeRecord,
  lifetimeSeconds = deps.config.AUTHORIZATION_CODE_TTL,
): Promise<void> {
  await deps.redis.set(codeKey(sha256(code)), JSON.stringify(record), 'EX', lifetimeSeconds);
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** RFC 6749 §4.1.3 with PKCE (RFC 7636). A second use of a code revokes what the first one issued (§4.1.2). */
const redeemCode: GrantHandler<typeof authorizationCodeForm> = async (ctx, form) => {
  const { deps } = ctx;
  const hash = sha256(form.code);
  const raw = await deps.redis.getdel(codeKey(hash));
  if (!raw) {
    const used = await deps.redis.get(usedKey(hash));
    if (used) {
      const { jti, exp, familyId } = JSON.parse(used) as { jti: string; exp: number; familyId?: string };
      await revokeAccessToken(deps.redis, jti, exp);
      if (familyId) await revokeFamily(deps, familyId);
      throw new OAuthError('invalid_grant', 'authorization code was already used; the tokens it produced are revoked');
    }
    throw new OAuthError('invalid_grant', 'authorization code is invalid or expired');
  }
  const record = JSON.parse(raw) as CodeRecord;
  if (record.clientId !== ctx.client._id)
    throw new OAuthError('invalid_grant', 'authorization code was issued to another client');
  if (form.redirect_uri !== record.redirectUri)
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
  const verifier = form.code_verifier;
  if (record.codeChallenge) {
    if (!verifier) throw new OAuthError('invalid_grant', 'code_verifier is required (PKCE)');
    if (!VERIFIER.test(verifier) || s256(verifier) !== record.codeChallenge)
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  } else if (verifier) {
    throw new OAuthError('invalid_grant', 'code_verifier sent but the authorization request had no code_challenge');
  }
  if (record.dpopJkt && record.dpopJkt !== ctx.jkt)
    throw new OAuthError('invalid_dpop_proof', 'the code is bound to another DPoP key');
  const audience = narrowAudience(record.audience, form.resource ?? []);
  const account = await activeAccount(deps, record.sub);
  const openid = record.scopes.includes(OPENID_SCOPE);
  const authTime = record.authTime ?? 0;
  const issued = await issueGrantTokens(ctx, {
    sub: record.sub,
    clientId: ctx.client._id,
    scopes: record.scopes,
    audience,
    account,
    // Refresh tokens of an OpenID Connect authentication remember when it happened (Core §12.2).
    ...(openid ? { authTime } : {}),
  });
  await deps.redis.set(
    usedKey(hash),
    JSON.stringify({ jti: issued.jti, exp: issued.exp, familyId: issued.familyId }),
    'EX',
    deps.config.ACCESS_TOKEN_TTL,
  );
  return withIdToken(ctx, issued.response, {
    sub: record.sub,
    clientId: ctx.client._id,
    scopes: record.scopes,
    account,
    authTime,
    ...(record.nonce !== undefined ? { nonce: record.nonce } : {}),
    // `sid` for the clients that are sent logout tokens, so they can match a logout to this sign-in.
    ...(record.sid !== undefined && ctx.client.backchannelLogoutUri ? { sid: record.sid } : {}),
  });
};

export const authorizationCodeGrant = defineGrant({
  form: authorizationCodeForm,
  handler: redeemCode,
  clients: 'any',
  issues: { refreshToken: 'new-family', idToken: true },
});
