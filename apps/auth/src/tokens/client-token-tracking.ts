import type { Redis } from 'ioredis';
import { revokeGrantKeys } from '../api-keys/grant-key-revocation';
import type { Deps } from '../deps';
import { revokeFamily } from './refresh-tokens';
import { revokeAccessToken } from './revocation';
import { ADD_LIVE_TOKEN_LUA, liveTokensIn } from './token-tracking';
import { redisScript } from '@platform/stores';

/**
 * What auth remembers of the access tokens issued to each client (every grant: its own
 * client_credentials tokens and the ones it holds for accounts), so that deleting the client revokes
 * them all through the `auth:revoked:jti:` keys every gateway already checks. Auth-internal Redis keys:
 * - `auth:tokens:client:<client_id>`: sorted set of the client's live access tokens (jti scored by exp);
 * - `auth:client-gone:<client_id>`: set when the client is deleted, for ACCESS_TOKEN_TTL: a token being
 *   issued at that moment (another replica may still hold the client in its 30-second cache) sees it
 *   in the same script that records the token and revokes itself.
 */
const CLIENT_TOKENS_PREFIX = 'auth:tokens:client:';
const CLIENT_GONE_PREFIX = 'auth:client-gone:';

// Atomic with the deletion's marker-then-read: either the deletion finds this token in the set, or
// this script sees the marker. Returns 1 when the client is gone.
const TRACK = `${ADD_LIVE_TOKEN_LUA}
if redis.call('EXISTS', KEYS[2]) == 1 then return 1 end
return 0
`;

const track = redisScript(TRACK);

/** Records a token issued to `clientId`; true when the client was deleted meanwhile (revoke the token). */
export async function trackClientToken(redis: Redis, clientId: string, jti: string, exp: number): Promise<boolean> {
  const now = Math.floor(Date.now() / 1000);
  return (
    (await track(
      redis,
      [`${CLIENT_TOKENS_PREFIX}${clientId}`, `${CLIENT_GONE_PREFIX}${clientId}`],
      [jti, String(exp), String(now)],
    )) === 1
  );
}

/** Whether a client of this id was deleted less than ACCESS_TOKEN_TTL ago (its id cannot be registered again yet). */
export async function isClientGone(redis: Redis, clientId: string): Promise<boolean> {
  return (await redis.exists(`${CLIENT_GONE_PREFIX}${clientId}`)) === 1;
}

/**
 * After a client is deleted: every refresh token family issued to it (with the access tokens issued
 * alongside), every live access token it holds and every API key minted with its tokens are revoked;
 * the gateways answer 401 to the next request with one of them. The keys go last: a key being minted
 * meanwhile sees the marker (api-keys/mint-api-key.ts).
 */
export async function revokeClientTokens(
  deps: Pick<Deps, 'config' | 'redis' | 'refreshTokens' | 'apiKeys'>,
  clientId: string,
): Promise<number> {
  const { redis } = deps;
  await redis.set(`${CLIENT_GONE_PREFIX}${clientId}`, '1', 'EX', Math.max(deps.config.ACCESS_TOKEN_TTL, 60));
  const families = await deps.refreshTokens.distinct('familyId', { clientId, revokedAt: null });
  for (const familyId of families as string[]) await revokeFamily(deps, familyId);
  const live = await liveTokensIn(redis, `${CLIENT_TOKENS_PREFIX}${clientId}`);
  for (const { jti, exp } of live) await revokeAccessToken(redis, jti, exp);
  await revokeGrantKeys(deps, { clientId });
  return live.length;
}
