import type { Redis } from 'ioredis';
import type { Model } from 'mongoose';
import { API_KEY_REVOKED_CHANNEL } from '../tokens/revocation';
import type { ApiKeyDoc } from './api-key-model';

/** Which minted keys to revoke: those of a client, of a refresh token family, of one access token, or every minted key of an account. */
type GrantKeys = { clientId: string } | { familyId: string } | { tokenId: string } | { accountId: string };

function filterOf(which: GrantKeys): Record<string, unknown> {
  if ('clientId' in which) return { 'grant.clientId': which.clientId };
  if ('familyId' in which) return { 'grant.familyId': which.familyId };
  if ('tokenId' in which) return { 'grant.tokenId': which.tokenId };
  return { accountId: which.accountId, grant: { $ne: null } };
}

/**
 * Revokes the live API keys minted from a grant (api-key-model.ts `grant`) and tells the gateways, as
 * `revokeApiKey` does for one key: every replica drops them from its cache and the next request with
 * one is 401. Called after the grant's own revocation is recorded (the client's marker, the family's
 * `revokedAt`, the token's revoked jti): a key being minted at that moment checks those after it is
 * stored (mint-api-key.ts) and revokes itself, so either this finds it or the minting sees the marker.
 */
export async function revokeGrantKeys(
  deps: { apiKeys: Model<ApiKeyDoc>; redis: Redis },
  which: GrantKeys,
): Promise<number> {
  const live = await deps.apiKeys.find({ ...filterOf(which), revokedAt: null }, { _id: 1 }).lean<{ _id: string }[]>();
  if (live.length === 0) return 0;
  const ids = live.map((k) => k._id);
  await deps.apiKeys.updateMany({ _id: { $in: ids }, revokedAt: null }, { $set: { revokedAt: new Date() } });
  for (const id of ids) await deps.redis.publish(API_KEY_REVOKED_CHANNEL, id);
  return ids.length;
}
