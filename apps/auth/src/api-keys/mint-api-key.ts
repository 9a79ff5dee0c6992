import { API_KEYS_SCOPE, mintableApiKeyScopes } from '@platform/oauth-resource';
import type { Deps } from '../deps';
import { verifyOwnAccessToken } from '../tokens/access-token';
import { isClientGone } from '../tokens/client-token-tracking';
import { isFamilyRevoked } from '../tokens/refresh-tokens';
import { isAccessTokenRevoked } from '../tokens/revocation';
import { isExchangedToken } from '../tokens/token-tracking';
import type { ApiKeyDoc, ApiKeyGrant } from './api-key-model';
import { API_KEYS_PER_ACCOUNT, createApiKey, revokeApiKey } from './api-keys';

/** Why a key cannot be minted with this token; `status` and `error` are the internal API's answer. */
export class MintRefused extends Error {
  constructor(
    readonly status: 401 | 403,
    readonly error: 'invalid_token' | 'insufficient_scope',
    message: string,
  ) {
    super(message);
    this.name = 'MintRefused';
  }
}

interface MintInput {
  /** The access token the caller presented (the gateway verified it, its audience and its DPoP proof). */
  accessToken: string;
  name: string;
  /** Absent: every speech scope the token holds that a key can hold. */
  scopes?: readonly string[];
}

type MintDeps = Pick<Deps, 'config' | 'keys' | 'redis' | 'apiKeys' | 'refreshTokens'>;

/** Whether the grant a key is (being) minted from has been revoked: its token, its family or its client. */
async function grantRevoked(deps: MintDeps, grant: ApiKeyGrant): Promise<boolean> {
  return (
    (await isAccessTokenRevoked(deps.redis, grant.tokenId)) ||
    (grant.familyId !== null && (await isFamilyRevoked(deps.refreshTokens, grant.familyId))) ||
    (await isClientGone(deps.redis, grant.clientId))
  );
}

/**
 * An API key for `accountId` minted with one of its access tokens (`POST /v1/api-keys`). The token must
 * hold `speech:keys`, belong to the account, and not be an exchanged one (RFC 8693: a delegation must not
 * turn into a credential of the subject's, and an exchanged token's revocation would not reach the key).
 * The key holds at most the token's speech scopes and records the grant it came from (client, refresh token
 * family, token), so it is revoked with any of them (grant-key-revocation.ts). Throws MintRefused;
 * ApiKeyLimitError past the per-account bound.
 */
export async function mintApiKey(
  deps: MintDeps,
  accountId: string,
  input: MintInput,
): Promise<{ key: string; doc: ApiKeyDoc }> {
  const claims = await verifyOwnAccessToken(deps.keys, deps.config.PUBLIC_URL, input.accessToken);
  if (!claims || claims.sub !== accountId || claims.sub === claims.client_id) {
    throw new MintRefused(401, 'invalid_token', 'the access token is not a valid token of this account');
  }
  // Exchanged tokens belong to no grant of their own: a key minted with one would escape the revocation of the
  // token and grant it stands for (which reaches exchanged tokens, not keys).
  if (claims.act !== undefined || (await isExchangedToken(deps.redis, claims.jti))) {
    throw new MintRefused(
      403,
      'insufficient_scope',
      'an exchanged access token (RFC 8693) cannot create API keys; use a token of the grant itself',
    );
  }
  const scope = claims.scope ?? '';
  if (!scope.split(' ').includes(API_KEYS_SCOPE))
    throw new MintRefused(403, 'insufficient_scope', `creating API keys needs the scope ${API_KEYS_SCOPE}`);
  const held = mintableApiKeyScopes(scope);
  const wanted = input.scopes ?? held;
  const beyond = wanted.filter((s) => !held.includes(s as (typeof held)[number]));
  if (held.length === 0 || beyond.length > 0) {
    throw new MintRefused(
      403,
      'insufficient_scope',
      `a key cannot hold more than the access token that creates it: the token holds ${held.length ? held.join(' ') : 'no speech scope'}${beyond.length ? `, not ${beyond.join(' ')}` : ''}`,
    );
  }
  const family = await deps.refreshTokens
    .findOne({ accessJti: claims.jti }, { familyId: 1 })
    .lean<{ familyId: string }>();
  const grant: ApiKeyGrant = { clientId: claims.client_id, familyId: family?.familyId ?? null, tokenId: claims.jti };
  if (await grantRevoked(deps, grant))
    throw new MintRefused(401, 'invalid_token', 'the access token or its grant was revoked');
  const minted = await createApiKey(deps.apiKeys, accountId, input.name, {
    scopes: wanted,
    maxLive: API_KEYS_PER_ACCOUNT,
    grant,
  });
  // Checked again once the key is stored: a revocation of the grant that ran meanwhile revoked the keys it
  // found before this one existed (it revokes keys last, after its own marker), so the key revokes itself.
  if (await grantRevoked(deps, grant)) {
    await revokeApiKey(deps.apiKeys, deps.redis, minted.doc._id);
    throw new MintRefused(401, 'invalid_token', 'the access token or its grant was revoked');
  }
  return minted;
}
