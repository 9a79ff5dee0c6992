import { parentPort, workerData } from 'node:worker_threads';
import { Redis } from 'ioredis';
import { createDeathWatch, livenessName, lookForDeaths } from './death-watch';
import { forEachLockOf } from './lock-owners';
import type { HeartbeatCommand, HeartbeatConfig, HeartbeatReport } from './heartbeat-protocol';

/**
 * The lock heartbeat (lock-heartbeat.ts starts it): a thread with its own event loop and its own
 * Redis connection, so neither the engine's encoding on the main thread nor a blocked main loop
 * can delay a beat. It dies with the process: a killed worker's locks lapse after one lock period,
 * and sooner, its connection (named for the process's workers) vanishes, which the other processes'
 * death watch sees (death-watch.ts).
 */

/**
 * Renews every lock of the queue's active jobs whose token belongs to one of this process's
 * workers, as BullMQ's own extendLocks script does (same token, new expiry, off the stalled set),
 * and answers the ids renewed. A job the main thread has not yet announced (just fetched) is
 * renewed too. A lock that is gone or holds another token is left alone.
 */
const RENEW_OWN_LOCKS = `${forEachLockOf(
  3,
  `
        redis.call('SET', lockKey, token, 'PX', ARGV[2])
        redis.call('SREM', KEYS[2], jobId)`,
)}
return matched`;

const config = workerData as HeartbeatConfig;
const port = parentPort;
if (!port) throw new Error('heartbeat-thread.ts runs as a worker thread');
const ownName = livenessName(config.workerIds);
// ioredis names the connection again on every reconnect.
const redis = new Redis(config.redisUrl, {
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false,
  connectionName: ownName,
});
redis.on('error', () => undefined);
const deaths = createDeathWatch();
const lockKeys = {
  activeKey: config.activeKey,
  stalledKey: config.stalledKey,
  stalledCheckKey: config.stalledCheckKey,
  jobKeyPrefix: config.jobKeyPrefix,
};
// Back after a break: the other processes' connections may not be back yet; they must be seen again.
redis.on('ready', () => deaths.reset());
const held = new Set<string>();

port.on('message', (command: HeartbeatCommand) => {
  if ('hold' in command) held.add(command.hold);
  else held.delete(command.release);
});

async function beat(): Promise<void> {
  const before = [...held];
  const renewed = new Set(
    (await redis.eval(
      RENEW_OWN_LOCKS,
      2,
      config.activeKey,
      config.stalledKey,
      config.jobKeyPrefix,
      String(config.lockMs),
      ...config.workerIds,
    )) as string[],
  );
  // Held both before and after the beat (a job released meanwhile has ended, not been lost).
  const lost = before.filter((id) => !renewed.has(id) && held.has(id));
  if (lost.length > 0) port!.postMessage({ lost } satisfies HeartbeatReport);
}

// One beat at a time: a slow Redis answer delays the next beat rather than piling them up. A
// failed beat (Redis away) is retried at the next one; the lock outlives a few missed beats.
async function loop(): Promise<void> {
  for (;;) {
    const next = new Promise((resolve) => setTimeout(resolve, config.intervalMs));
    await beat().catch(() => undefined);
    await next;
  }
}
void loop();

async function watchLoop(): Promise<void> {
  for (;;) {
    const next = new Promise((resolve) => setTimeout(resolve, config.deathWatchMs));
    try {
      const released = await lookForDeaths(redis, deaths, lockKeys, config.workerIds);
      if (released.length > 0) port!.postMessage({ released } satisfies HeartbeatReport);
    } catch (err) {
      // Redis away: retried at the next look (and everyone must be seen again). A server that
      // refuses CLIENT LIST (a managed Redis may) will not change its mind: lock expiry alone then.
      deaths.reset();
      const message = err instanceof Error ? err.message : String(err);
      if (/unknown command|NOPERM|no permissions/i.test(message)) {
        port!.postMessage({ watchFailed: message } satisfies HeartbeatReport);
        return;
      }
    }
    await next;
  }
}
if (config.deathWatchMs > 0) void watchLoop();
