import { OAuthError } from '../oauth/oauth-error';
import type { AccountDoc } from '../accounts/account-model';
import type { Deps } from '../deps';
import { grantableScopes } from '../admin/admin-scope';
import { EMAIL_SCOPE } from '../oauth/scopes';
import { issueAccessToken } from './access-token';
import { trackClientToken } from './client-token-tracking';
import { revokeFamily, storeRefreshToken } from './refresh-tokens';
import { revokeAccessToken } from './revocation';
import { recordExchangedToken, trackIssuedToken } from './token-tracking';

export interface TokenSetInput {
  sub: string;
  clientId: string;
  scopes: string[];
  audience: string[];
  /** Access token bound to this DPoP key. */
  jkt?: string;
  /** Refresh token bound to this DPoP key (public clients, RFC 9449 §5). */
  refreshJkt?: string;
  withRefresh: boolean;
  familyId?: string;
  account?: AccountDoc | null;
  act?: Record<string, unknown>;
  /** Account claims copied from another token (token exchange) when no account document is at hand. */
  profile?: { roles?: string[]; plan?: string; username?: string };
  /** Shorter access token lifetime than ACCESS_TOKEN_TTL (token exchange: never past the subject token's exp). */
  ttlSeconds?: number;
  /** The token this one is exchanged from (RFC 8693): revoking that one revokes this one. */
  derivedFrom?: { jti: string; exp: number };
  /** OpenID Connect: when the person signed in (seconds), kept with the refresh token for its ID tokens. */
  authTime?: number;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  refresh_expires_in?: number;
  issued_token_type?: string;
  /** OpenID Connect Core 1.0 §3.1.3.3. */
  id_token?: string;
}

export interface IssuedTokenSet {
  response: TokenResponse;
  jti: string;
  exp: number;
  familyId?: string;
}

/** Signs the access token and, when the grant allows it, stores a refresh token in the same family. */
export async function issueTokenSet(
  deps: Pick<Deps, 'config' | 'keys' | 'redis' | 'refreshTokens' | 'apiKeys'>,
  requested: TokenSetInput,
): Promise<IssuedTokenSet> {
  const { config } = deps;
  // The admin scope only for ADMIN accounts and clients' own tokens (admin/admin-scope.ts).
  const roles = requested.account
    ? requested.account.roles
    : (requested.profile?.roles ?? (requested.sub === requested.clientId ? undefined : []));
  const input = {
    ...requested,
    scopes: grantableScopes(requested.scopes, { sub: requested.sub, clientId: requested.clientId, roles }),
  };
  const ttlSeconds = Math.min(input.ttlSeconds ?? config.ACCESS_TOKEN_TTL, config.ACCESS_TOKEN_TTL);
  // The account's email (`username`) only for tokens granted the email scope.
  const withEmail = input.scopes.includes(EMAIL_SCOPE);
  const at = await issueAccessToken(deps.keys, {
    issuer: config.PUBLIC_URL,
    sub: input.sub,
    clientId: input.clientId,
    scopes: input.scopes,
    audience: input.audience,
    ttlSeconds,
    ...(input.jkt ? { jkt: input.jkt } : {}),
    ...(input.account
      ? {
          roles: input.account.roles,
          plan: input.account.plan,
          ...(withEmail ? { username: input.account.email } : {}),
        }
      : {
          ...(input.profile?.roles ? { roles: input.profile.roles } : {}),
          ...(input.profile?.plan ? { plan: input.profile.plan } : {}),
          ...(withEmail && input.profile?.username ? { username: input.profile.username } : {}),
        }),
    ...(input.act ? { act: input.act } : {}),
  });
  const response: TokenResponse = {
    access_token: at.token,
    token_type: input.jkt ? 'DPoP' : 'Bearer',
    expires_in: ttlSeconds,
    scope: input.scopes.join(' '),
  };
  let familyId: string | undefined;
  if (input.withRefresh) {
    const rt = await storeRefreshToken(deps.refreshTokens, {
      ...(input.familyId ? { familyId: input.familyId } : {}),
      clientId: input.clientId,
      sub: input.sub,
      scopes: input.scopes,
      audience: input.audience,
      ...(input.refreshJkt ? { jkt: input.refreshJkt } : {}),
      accessJti: at.jti,
      accessExp: at.exp,
      ...(input.authTime !== undefined ? { authTime: input.authTime } : {}),
      ttlSeconds: config.REFRESH_TOKEN_TTL,
    });
    response.refresh_token = rt.token;
    familyId = rt.familyId;
  }
  // Per client, every token: deleting the client revokes them (tokens/client-token-tracking.ts).
  if (await trackClientToken(deps.redis, input.clientId, at.jti, at.exp)) {
    await revokeAccessToken(deps.redis, at.jti, at.exp);
    if (familyId) await revokeFamily(deps, familyId);
    throw new OAuthError('invalid_client', 'the client was deleted', 401);
  }
  // Before the token is handed out: whoever presents it can be told it was exchanged.
  if (input.derivedFrom) await recordExchangedToken(deps.redis, at.jti, at.exp, input.derivedFrom.jti);
  // A client's tokens for itself (client_credentials) belong to no account: nothing to track.
  if (input.sub !== input.clientId || input.derivedFrom) {
    const stale = await trackIssuedToken(deps.redis, {
      sub: input.sub,
      jti: at.jti,
      exp: at.exp,
      ...(input.account ? { accountVersion: input.account.securityVersion ?? 0 } : {}),
      ...(input.derivedFrom ? { derivedFrom: input.derivedFrom } : {}),
    });
    if (stale) {
      await revokeAccessToken(deps.redis, at.jti, at.exp);
      if (familyId) await revokeFamily(deps, familyId);
      throw new OAuthError('invalid_grant', 'the account or the token it was issued from changed meanwhile; try again');
    }
  }
  return { response, jti: at.jti, exp: at.exp, ...(familyId ? { familyId } : {}) };
}
