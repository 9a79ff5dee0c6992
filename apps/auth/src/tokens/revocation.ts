import type { Redis } from 'ioredis';

/** Redis keys and channels of the revocation contract (docs/architecture.md). */
export const REVOKED_JTI_PREFIX = 'auth:revoked:jti:';
export const REVOCATIONS_CHANNEL = 'auth:revocations';
export const API_KEY_REVOKED_CHANNEL = 'auth:api-key-revoked';

/** Marks an access token revoked until it would have expired anyway, and tells every gateway at once. */
export async function revokeAccessToken(redis: Redis, jti: string, exp: number): Promise<void> {
  const ttl = exp - Math.floor(Date.now() / 1000);
  if (ttl <= 0) return;
  await redis.set(`${REVOKED_JTI_PREFIX}${jti}`, '1', 'EX', ttl);
  await redis.publish(REVOCATIONS_CHANNEL, jti);
}

export async function isAccessTokenRevoked(redis: Redis, jti: string): Promise<boolean> {
  return (await redis.exists(`${REVOKED_JTI_PREFIX}${jti}`)) === 1;
}
