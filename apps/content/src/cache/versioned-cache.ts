import type { Redis } from 'ioredis';

/**
 * Redis cache shared by all replicas. Entries are keyed by the current version of the entity
 * type they depend on; a mutation bumps the version (one INCR), so every replica stops reading
 * the old entries at once and they expire on their own TTL. No key scans, no stale reads after
 * the mutation returned.
 */
export type CachedType = 'User' | 'Post' | 'Comment';

export interface VersionedCache {
  get(type: CachedType, key: string): Promise<string | null>;
  set(type: CachedType, key: string, value: string, ttlSeconds: number): Promise<void>;
  invalidate(type: CachedType): Promise<void>;
}

export function createVersionedCache(redis: Redis, prefix: string): VersionedCache {
  const versionKey = (type: CachedType) => `${prefix}cache:ver:${type}`;
  async function version(type: CachedType): Promise<string> {
    return (await redis.get(versionKey(type))) ?? '0';
  }
  return {
    async get(type, key) {
      const v = await version(type);
      return redis.get(`${prefix}cache:${type}:${v}:${key}`);
    },
    async set(type, key, value, ttlSeconds) {
      const v = await version(type);
      await redis.set(`${prefix}cache:${type}:${v}:${key}`, value, 'EX', ttlSeconds);
    },
    async invalidate(type) {
      await redis.incr(versionKey(type));
    },
  };
}
