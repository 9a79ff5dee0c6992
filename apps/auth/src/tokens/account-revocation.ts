import { revokeGrantKeys } from '../api-keys/grant-key-revocation';
import type { Deps } from '../deps';
import { revokeFamily } from './refresh-tokens';
import { API_KEY_REVOKED_CHANNEL, revokeAccessToken } from './revocation';
import { ACCOUNT_CHANGED_PREFIX, liveTokensOf } from './token-tracking';

/**
 * After a change of an account's rights (roles, status, password; the account document already
 * holds `securityVersion`): everything issued before it stops working on the next request.
 * - the marker first, so a token being issued from the old account state right now revokes itself
 *   (issue-tokens.ts); kept as long as an access token lives;
 * - every refresh token family of the account, with the access tokens issued alongside;
 * - every live access token issued for the account (any client, any grant, exchanged ones too), by
 *   the same `auth:revoked:jti:` keys and notices the gateways already check: the next HTTP request
 *   gets 401, a graphql-ws connection held by one of them is closed;
 * - every API key minted from one of the account's grants (with an access token at `/v1/api-keys`):
 *   the grants are gone, and so are their keys (after the tokens: a key being minted meanwhile sees
 *   its token revoked and revokes itself, api-keys/mint-api-key.ts);
 * - the gateways' cached lookups of the account's other API keys, the ones an administrator made (they
 *   stay valid; the next request with one asks auth again and gets the account's current roles and
 *   plan, or nothing if disabled).
 */
export async function revokeAccountTokens(
  deps: Pick<Deps, 'config' | 'redis' | 'refreshTokens' | 'apiKeys'>,
  accountId: string,
  securityVersion: number,
): Promise<void> {
  const { redis } = deps;
  await redis.set(
    `${ACCOUNT_CHANGED_PREFIX}${accountId}`,
    String(securityVersion),
    'EX',
    Math.max(deps.config.ACCESS_TOKEN_TTL, 60),
  );
  const families = await deps.refreshTokens.distinct('familyId', { sub: accountId, revokedAt: null });
  for (const familyId of families as string[]) await revokeFamily(deps, familyId);
  for (const token of await liveTokensOf(redis, accountId)) await revokeAccessToken(redis, token.jti, token.exp);
  await revokeGrantKeys(deps, { accountId });
  const keys = await deps.apiKeys.find({ accountId, revokedAt: null }, { _id: 1 }).lean<{ _id: string }[]>();
  for (const key of keys) await redis.publish(API_KEY_REVOKED_CHANNEL, key._id);
}
