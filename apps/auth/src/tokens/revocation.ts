import type { Redis } from 'ioredis';

/** Redis keys and channels of the revocation contract (docs/architecture.md). */
export const REVOKED_JTI_PREFIX = 'auth:revoked:jti:';
const REVOCATIONS_CHANNEL = 'auth:revocations';
export const API_KEY_REVOKED_CHANNEL = 'auth:api-key-revoked';
/** Hash of the tokens exchanged from an access token (RFC 8693): child jti → child exp. Auth-internal. */
export const DERIVED_PREFIX = 'auth:derived:';

/** Depth and breadth bound of one cascade (an exchange of an exchange of …): far above any real chain. */
const MAX_CASCADE = 10_000;

/**
 * Marks an access token revoked until it would have expired anyway, and tells every gateway at once.
 * Tokens exchanged from it (and from those, …) are revoked with it: an exchanged token never outlives
 * the revocation of the token it stands for. They never outlive its `exp` either (token exchange caps
 * their lifetime), so an expired token has nothing left to cascade to.
 */
export async function revokeAccessToken(redis: Redis, jti: string, exp: number): Promise<void> {
  const pending = [{ jti, exp }];
  const seen = new Set<string>();
  while (pending.length > 0 && seen.size < MAX_CASCADE) {
    const token = pending.pop()!;
    if (seen.has(token.jti)) continue;
    seen.add(token.jti);
    const ttl = token.exp - Math.floor(Date.now() / 1000);
    if (ttl <= 0) continue;
    await redis.set(`${REVOKED_JTI_PREFIX}${token.jti}`, '1', 'EX', ttl);
    await redis.publish(REVOCATIONS_CHANNEL, token.jti);
    const derived = await redis.hgetall(`${DERIVED_PREFIX}${token.jti}`);
    for (const [child, childExp] of Object.entries(derived)) pending.push({ jti: child, exp: Number(childExp) });
  }
}

export async function isAccessTokenRevoked(redis: Redis, jti: string): Promise<boolean> {
  return (await redis.exists(`${REVOKED_JTI_PREFIX}${jti}`)) === 1;
}
