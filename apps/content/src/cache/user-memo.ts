import type { UserDoc } from '../models';
import type { CachedType } from './versioned-cache';

/**
 * Users by id, remembered in this process under the `User` version of the versioned cache
 * (versioned-cache.ts). Every profile write bumps that version once it has committed, so after
 * the write returns no replica serves the older document: the same guarantee as the Redis entries,
 * without a MongoDB round trip for the authors of every page that is read.
 *
 * A caller reads the version first (`version()`, one Redis GET that can run beside its other
 * queries), then loads: an entry remembered under that version is served, the rest are read from
 * MongoDB and remembered under it. A read that races a write is remembered under the version it
 * started with, so the next caller, who sees the new version, reads MongoDB again.
 */
export interface UserMemo {
  /** The current `User` version, or null when Redis does not answer (then nothing is remembered). */
  version(): Promise<string | null>;
  /** The users with these ids that exist, as of `version`. */
  load(ids: readonly string[], version: string | null): Promise<Map<string, UserDoc>>;
}

/**
 * The `User` version one GraphQL request loads its users under. A request whose operation goes through
 * `@cache` gets it from that look-up, which reads it in the same round trip (`offer`); any other reads it on
 * its own when its first user is loaded (`get`). Either way it is read before any user is loaded, as
 * `UserMemo` requires.
 */
export interface RequestUserVersion {
  /** True until the version was offered or asked for: a look-up may then read it alongside its own keys. */
  readonly wanted: boolean;
  offer(version: string): void;
  get(): Promise<string | null>;
}

export function requestUserVersion(read: () => Promise<string | null>): RequestUserVersion {
  let version: Promise<string | null> | undefined;
  return {
    get wanted() {
      return version === undefined;
    },
    offer(value) {
      version ??= Promise.resolve(value);
    },
    get: () => (version ??= read()),
  };
}

interface UserMemoDeps {
  readVersion: (type: CachedType) => Promise<string>;
  findUsers: (ids: string[]) => Promise<UserDoc[]>;
  /** Users remembered at most; the least recently used go first. */
  maxEntries: number;
}

export function createUserMemo(deps: UserMemoDeps): UserMemo {
  const entries = new Map<string, { version: string; user: UserDoc }>();
  const remember = (user: UserDoc, version: string) => {
    entries.delete(user._id);
    if (entries.size >= deps.maxEntries) entries.delete(entries.keys().next().value!);
    entries.set(user._id, { version, user });
  };
  return {
    version: () => deps.readVersion('User').catch(() => null),
    async load(ids, version) {
      const found = new Map<string, UserDoc>();
      const missing: string[] = [];
      for (const id of new Set(ids)) {
        const entry = version === null ? undefined : entries.get(id);
        if (entry && entry.version === version) {
          // Refreshed as most recently used.
          entries.delete(id);
          entries.set(id, entry);
          found.set(id, entry.user);
        } else {
          missing.push(id);
        }
      }
      if (missing.length === 0) return found;
      for (const read of await deps.findUsers(missing)) {
        // Shared by every request that reads it: frozen, so a caller that changed it would fail loudly.
        const user = Object.freeze(read);
        found.set(user._id, user);
        if (version !== null) remember(user, version);
      }
      return found;
    },
  };
}
