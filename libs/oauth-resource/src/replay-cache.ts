import type { Redis } from 'ioredis';

/** Remembers one-time values (DPoP proof jti, assertion jti) until they could no longer be accepted anyway. */
export interface ReplayCache {
  /** True the first time `key` is seen within `ttlSeconds`; false on every later call. */
  firstUse(key: string, ttlSeconds: number): Promise<boolean>;
}

/** Redis `SET NX EX`: atomic across every replica that shares the Redis. */
export function redisReplayCache(redis: Redis, prefix: string): ReplayCache {
  return {
    async firstUse(key, ttlSeconds) {
      const set = await redis.set(`${prefix}${key}`, '1', 'EX', Math.max(1, Math.ceil(ttlSeconds)), 'NX');
      return set === 'OK';
    },
  };
}

/** DPoP server nonces (RFC 9449 §8/§9): random values that stay valid for a while, shared through Redis. */
export interface NonceStore {
  issue(): Promise<string>;
  isValid(nonce: string): Promise<boolean>;
}

export const DEFAULT_NONCE_PREFIX = 'auth:dpop-nonce:';

export function redisNonceStore(redis: Redis, options: { prefix?: string; ttlSeconds?: number } = {}): NonceStore {
  const prefix = options.prefix ?? DEFAULT_NONCE_PREFIX;
  const ttl = options.ttlSeconds ?? 300;
  return {
    async issue() {
      const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url');
      await redis.set(`${prefix}${nonce}`, '1', 'EX', ttl);
      return nonce;
    },
    async isValid(nonce) {
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(nonce)) return false;
      return (await redis.exists(`${prefix}${nonce}`)) === 1;
    },
  };
}
