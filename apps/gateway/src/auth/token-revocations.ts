import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';
import { REVOKED_JTI_PREFIX } from '@platform/oauth-resource';

/** Channel on which auth publishes the `jti` of every revoked access token (docs/architecture.md). */
export const TOKEN_REVOKED_CHANNEL = 'auth:revocations';

/** For each jti, whether it is revoked now. */
type RevocationCheck = (jtis: string[]) => Promise<boolean[]>;

/**
 * The access tokens that hold long-lived connections open (graphql-ws), each with what to do
 * when it is revoked. HTTP requests need none of this: each one checks revocation itself.
 */
export interface RevocationWatch {
  /** Calls `onRevoked` once if the token is revoked; the returned function stops watching. */
  watch(jti: string, onRevoked: () => void): () => void;
  /** A revocation notice: the token's watchers fire at once. */
  revoked(jti: string): void;
  /** Asks for every watched token whether it was revoked (the backstop for missed notices). */
  sweep(): Promise<void>;
  /** Distinct tokens watched. */
  size(): number;
}

const SWEEP_BATCH = 500;

export function createRevocationWatch(isRevoked: RevocationCheck): RevocationWatch {
  const watchers = new Map<string, Set<() => void>>();
  let sweeping: Promise<void> | undefined;

  const fire = (jti: string) => {
    const callbacks = watchers.get(jti);
    if (!callbacks) return;
    watchers.delete(jti);
    for (const callback of callbacks) callback();
  };

  const sweepAll = async () => {
    const jtis = [...watchers.keys()];
    for (let i = 0; i < jtis.length; i += SWEEP_BATCH) {
      const batch = jtis.slice(i, i + SWEEP_BATCH);
      const answers = await isRevoked(batch);
      batch.forEach((jti, k) => {
        if (answers[k]) fire(jti);
      });
    }
  };

  return {
    watch(jti, onRevoked) {
      // A wrapper per call, so one callback watched twice is also unwatched twice.
      const entry = () => onRevoked();
      const callbacks = watchers.get(jti) ?? new Set<() => void>();
      callbacks.add(entry);
      watchers.set(jti, callbacks);
      return () => {
        const current = watchers.get(jti);
        current?.delete(entry);
        if (current?.size === 0) watchers.delete(jti);
      };
    },
    revoked: fire,
    sweep() {
      // One sweep at a time: a slow Redis must not pile them up.
      sweeping ??= sweepAll().finally(() => {
        sweeping = undefined;
      });
      return sweeping;
    },
    size: () => watchers.size,
  };
}

/** Revocation as auth records it: `auth:revoked:jti:<jti>` until the token's `exp` (one round trip per batch). */
export function redisRevocationCheck(redis: Redis): RevocationCheck {
  return async (jtis) => {
    if (jtis.length === 0) return [];
    const pipeline = redis.pipeline();
    for (const jti of jtis) pipeline.exists(`${REVOKED_JTI_PREFIX}${jti}`);
    const results = (await pipeline.exec()) ?? [];
    return jtis.map((_jti, i) => {
      const [err, count] = results[i] ?? [new Error('no reply'), 0];
      if (err) throw err;
      return count === 1;
    });
  };
}

/**
 * Feeds the watch: a notice on `auth:revocations` fires at once (tens of milliseconds after
 * `/revoke`); a sweep every `intervalMs` catches what pub/sub lost (it has no replay), and one runs
 * as soon as the subscriber reconnects. A sweep that fails (Redis down) closes nothing: the next
 * one tries again.
 */
export async function listenForTokenRevocations(
  subscriber: Redis,
  watch: RevocationWatch,
  options: { intervalMs: number; logger: Logger },
): Promise<{ stop: () => void }> {
  const sweep = () =>
    watch.sweep().catch((err: unknown) => {
      options.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'token revocation sweep failed');
    });
  let connectedBefore = false;
  subscriber.on('ready', () => {
    if (connectedBefore) void sweep();
    connectedBefore = true;
  });
  subscriber.on('message', (channel: string, jti: string) => {
    if (channel === TOKEN_REVOKED_CHANNEL) watch.revoked(jti);
  });
  await subscriber.subscribe(TOKEN_REVOKED_CHANNEL);
  connectedBefore = true;
  const timer = setInterval(() => void sweep(), options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
