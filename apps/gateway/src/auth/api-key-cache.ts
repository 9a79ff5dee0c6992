import { createHash } from 'node:crypto';
import type { Role } from '@platform/identity';

/** What auth's `/internal/api-keys/lookup` answers for a live key (docs/architecture.md). */
export interface ApiKeyRecord {
  accountId: string;
  plan: string;
  keyId: string;
  roles: Role[];
}

export type ApiKeyLookup = (key: string) => Promise<ApiKeyRecord | null>;

export interface ApiKeyResolver {
  /** The key's record, from cache when fresh; null when auth does not know the key. */
  resolve(key: string): Promise<ApiKeyRecord | null>;
  /** Forget a revoked key at once (message on `auth:api-key-revoked`). */
  revoke(keyId: string): void;
  /** Forget everything (the revocation channel reconnected: messages may have been missed). */
  clear(): void;
  size(): number;
}

interface Entry {
  record: ApiKeyRecord;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

/**
 * A short positive cache in front of auth. Keys are held only as SHA-256 digests. A revocation
 * that arrives while a lookup is in flight wins: the answer is used once but not cached.
 * Unknown keys are not cached, so a key that was just created works at once.
 */
export function createApiKeyResolver(lookup: ApiKeyLookup, ttlMs: number, now: () => number = Date.now): ApiKeyResolver {
  const entries = new Map<string, Entry>();
  const byKeyId = new Map<string, Set<string>>();
  const inFlight = new Map<string, Promise<ApiKeyRecord | null>>();
  let generation = 0;
  let clearedAt = 0;
  const revokedAt = new Map<string, number>();

  const forget = (digest: string) => {
    const entry = entries.get(digest);
    if (!entry) return;
    entries.delete(digest);
    const digests = byKeyId.get(entry.record.keyId);
    digests?.delete(digest);
    if (digests && digests.size === 0) byKeyId.delete(entry.record.keyId);
  };

  const remember = (digest: string, record: ApiKeyRecord) => {
    if (entries.size >= MAX_ENTRIES) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) forget(oldest);
    }
    entries.set(digest, { record, expiresAt: now() + ttlMs });
    const digests = byKeyId.get(record.keyId) ?? new Set<string>();
    digests.add(digest);
    byKeyId.set(record.keyId, digests);
  };

  return {
    async resolve(key) {
      const digest = createHash('sha256').update(key).digest('base64url');
      const cached = entries.get(digest);
      if (cached && cached.expiresAt > now()) return cached.record;
      if (cached) forget(digest);
      const pending = inFlight.get(digest);
      if (pending) return pending;
      const startedAt = generation;
      const lookedUp = lookup(key)
        .then((record) => {
          const revokedDuring = record ? (revokedAt.get(record.keyId) ?? -1) > startedAt || clearedAt > startedAt : false;
          if (record && !revokedDuring) remember(digest, record);
          return record;
        })
        .finally(() => inFlight.delete(digest));
      inFlight.set(digest, lookedUp);
      return lookedUp;
    },
    revoke(keyId) {
      generation += 1;
      revokedAt.set(keyId, generation);
      if (revokedAt.size > MAX_ENTRIES) revokedAt.delete(revokedAt.keys().next().value!);
      for (const digest of [...(byKeyId.get(keyId) ?? [])]) forget(digest);
    },
    clear() {
      generation += 1;
      clearedAt = generation;
      entries.clear();
      byKeyId.clear();
    },
    size: () => entries.size,
  };
}
