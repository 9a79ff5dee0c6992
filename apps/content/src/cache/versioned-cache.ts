import type { Redis } from 'ioredis';

/**
 * Redis cache shared by all replicas. Every entry records the version of the entity type it was
 * computed under; a mutation bumps the version (one INCR), so every replica stops serving the older
 * entries at once and they expire on their own TTL. No key scans, no stale reads after the mutation
 * returned.
 *
 * A lookup is one round trip (MGET of the version and the entry: an entry whose version is not the
 * current one is a miss), a store another (SET, under the version read by the lookup, so a result
 * computed while a mutation landed is stored as already outdated rather than as current).
 */
export type CachedType = 'User' | 'Post' | 'Comment';

interface CacheLookup {
  /** The entry, when one was stored under the current version. */
  value: string | null;
  /** The current version, to store a freshly computed value under (`set`). */
  version: string;
  /** The current version of the type named by `get`'s `alsoVersionOf`, read in the same round trip. */
  otherVersion?: string;
}

export interface VersionedCache {
  /**
   * `alsoVersionOf`: another type whose version the caller needs anyway (the author memo's `User`), read in
   * the same `MGET` rather than as a command of its own: on this machine each command's socket write costs
   * more than the JavaScript around it.
   */
  get(type: CachedType, key: string, alsoVersionOf?: CachedType): Promise<CacheLookup>;
  /** The type's current version alone (one GET), for caches that keep entries elsewhere (user-memo.ts). */
  version(type: CachedType): Promise<string>;
  set(type: CachedType, key: string, version: string, value: string, ttlSeconds: number): Promise<void>;
  invalidate(type: CachedType): Promise<void>;
}

/** Versions are INCR counters (digits only), so the first `:` ends the version in a stored entry. */
const SEPARATOR = ':';

export function createVersionedCache(redis: Redis, prefix: string): VersionedCache {
  const versionKey = (type: CachedType) => `${prefix}cache:ver:${type}`;
  const entryKey = (type: CachedType, key: string) => `${prefix}cache:${type}:${key}`;
  return {
    async get(type, key, alsoVersionOf) {
      const keys = [versionKey(type), entryKey(type, key)];
      if (alsoVersionOf) keys.push(versionKey(alsoVersionOf));
      const [storedVersion, entry, otherVersion] = await redis.mget(...keys);
      const version = storedVersion ?? '0';
      const cut = entry ? entry.indexOf(SEPARATOR) : -1;
      const current = entry && cut > 0 && entry.slice(0, cut) === version;
      return {
        value: current ? entry.slice(cut + 1) : null,
        version,
        ...(alsoVersionOf ? { otherVersion: otherVersion ?? '0' } : {}),
      };
    },
    async version(type) {
      return (await redis.get(versionKey(type))) ?? '0';
    },
    async set(type, key, version, value, ttlSeconds) {
      await redis.set(entryKey(type, key), `${version}${SEPARATOR}${value}`, 'EX', ttlSeconds);
    },
    async invalidate(type) {
      await redis.incr(versionKey(type));
    },
  };
}
