import { createHash } from 'node:crypto';
import type { Role } from '@platform/identity';

/** What auth's `/internal/api-keys/lookup` answers for a live key (docs/architecture.md). */
export interface ApiKeyRecord {
  accountId: string;
  plan: string;
  keyId: string;
  roles: Role[];
  /** Space-separated scopes the key grants: a subset of API_KEY_SCOPES (libs/oauth-resource). */
  scope: string;
}

export type ApiKeyLookup = (key: string) => Promise<ApiKeyRecord | null>;

export interface ApiKeyResolver {
  /** The key's record, from cache when fresh; null when auth does not know the key. */
  resolve(key: string): Promise<ApiKeyRecord | null>;
  /** Whether `resolve` would answer from this replica's memory (live or unknown) without asking auth. */
  isCached(key: string): boolean;
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

interface ApiKeyCacheOptions {
  /** How long a live key is trusted without asking auth (a revocation clears it at once). */
  ttlMs: number;
  /** How long a key auth does not know is answered as unknown without asking again; 0: never. */
  unknownTtlMs?: number;
  now?: () => number;
}

function digestOf(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

/**
 * A short cache in front of auth. Keys are held only as SHA-256 digests. A revocation that
 * arrives while a lookup is in flight wins: the answer is used once but not cached.
 *
 * Keys auth does not know are remembered as unknown only for `unknownTtlMs` (a few seconds), so a
 * flood of the same made-up key costs auth one lookup per replica per interval. This cannot delay
 * a new key: auth makes keys from 32 random bytes and hands one out only once it is stored, so no
 * one can have sent it before (short of guessing it). It can delay a key coming back to life
 * (auth answers "unknown" for a disabled account's keys too) by at most `unknownTtlMs`; it can
 * never keep a revoked key working, since it only ever refuses.
 */
export function createApiKeyResolver(lookup: ApiKeyLookup, options: ApiKeyCacheOptions): ApiKeyResolver {
  const { ttlMs, unknownTtlMs = 0, now = Date.now } = options;
  const entries = new Map<string, Entry>();
  /** Digest → when "unknown" stops being believed. Kept apart so made-up keys never evict live ones. */
  const unknown = new Map<string, number>();
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

  const rememberUnknown = (digest: string) => {
    if (unknownTtlMs <= 0) return;
    unknown.delete(digest); // re-inserted last: the map's order stays oldest first
    if (unknown.size >= MAX_ENTRIES) {
      const oldest = unknown.keys().next().value;
      if (oldest !== undefined) unknown.delete(oldest);
    }
    unknown.set(digest, now() + unknownTtlMs);
  };

  const knownUnknown = (digest: string): boolean => {
    const until = unknown.get(digest);
    if (until === undefined) return false;
    if (until > now()) return true;
    unknown.delete(digest);
    return false;
  };

  return {
    async resolve(key) {
      const digest = digestOf(key);
      const cached = entries.get(digest);
      if (cached && cached.expiresAt > now()) return cached.record;
      if (cached) forget(digest);
      if (knownUnknown(digest)) return null;
      const pending = inFlight.get(digest);
      if (pending) return pending;
      const startedAt = generation;
      const lookedUp = lookup(key)
        .then((record) => {
          const revokedDuring = record
            ? (revokedAt.get(record.keyId) ?? -1) > startedAt || clearedAt > startedAt
            : false;
          if (record && !revokedDuring) remember(digest, record);
          if (!record) rememberUnknown(digest);
          return record;
        })
        .finally(() => inFlight.delete(digest));
      inFlight.set(digest, lookedUp);
      return lookedUp;
    },
    isCached(key) {
      const digest = digestOf(key);
      const cached = entries.get(digest);
      return (cached !== undefined && cached.expiresAt > now()) || knownUnknown(digest);
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
      unknown.clear();
    },
    size: () => entries.size,
  };
}
