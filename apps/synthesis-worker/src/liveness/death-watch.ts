import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { forEachLockOf } from './lock-owners';

/**
 * Seeing a killed worker at once, instead of waiting for its job locks to lapse (docs/decisions.md,
 * worker liveness). Every worker process's lock heartbeat connection carries a name that lists the
 * process's BullMQ worker ids (`CLIENT SETNAME`). A process that dies, even by SIGKILL, has its
 * sockets closed by the kernel, so Redis drops the name within milliseconds; a process that is
 * merely busy (CPU load, a blocked main loop) keeps its connection, so load cannot fake a death.
 * The heartbeat threads of the other processes look at `CLIENT LIST` every `SYNTHESIS_DEATH_WATCH_MS`
 * and release the job locks of a worker whose name vanished, after which the stalled check puts its
 * jobs back at the head of the queue. A process that is frozen or cut off from Redis while its
 * connection stays open is still found by its lock lapsing (`SYNTHESIS_LOCK_MS`).
 */

/** Start of a heartbeat connection's name; the process's worker ids follow, comma-separated. */
const NAME_PREFIX = 'synthesis-liveness:';

/** The heartbeat connection's name for a process whose BullMQ workers have these ids. */
export function livenessName(workerIds: readonly string[]): string {
  return `${NAME_PREFIX}${workerIds.join(',')}`;
}

/** The worker ids of every live process, from the answer to `CLIENT LIST` (one client a line). */
export function liveWorkerIds(clientList: string): Set<string> {
  const ids = new Set<string>();
  for (const match of clientList.matchAll(/(?:^|\s)name=(\S*)/g)) {
    const name = match[1]!;
    if (name.startsWith(NAME_PREFIX)) for (const id of name.slice(NAME_PREFIX.length).split(',')) if (id) ids.add(id);
  }
  return ids;
}

/**
 * The workers that died between two looks: seen alive before, absent now. A worker never seen is
 * not judged (a process that just started may fetch a job before a watcher first sees it), and
 * `reset` forgets everyone: after this watcher's own connection comes back (Redis restarted, the
 * network blinked), the others' connections may not be back yet, so each must be seen again.
 */
export function createDeathWatch() {
  let seen = new Set<string>();
  return {
    observe(live: Set<string>): string[] {
      const gone = [...seen].filter((id) => !live.has(id));
      seen = new Set(live);
      return gone;
    },
    reset() {
      seen = new Set();
    },
  };
}

/** BullMQ's keys of the queue that releasing a lock touches. */
export interface QueueLockKeys {
  /** The `active` list, the `stalled` set and the stalled check's own lock (`stalled-check`). */
  activeKey: string;
  stalledKey: string;
  stalledCheckKey: string;
  /** Prefix of a job's keys (`bull:synthesis:`). */
  jobKeyPrefix: string;
}

/**
 * For every active job whose lock holds a token of a dead worker (`<worker id>:<n>`): deletes the
 * lock (only while it still holds that token: a new owner's lock is never touched) and marks the
 * job stalled, then clears the stalled check's lock so the next check runs at once. BullMQ's
 * stalled check then moves the job to the head of `wait` as it would a lapsed lock's.
 */
const RELEASE_DEAD_LOCKS = `${forEachLockOf(
  2,
  `
        redis.call('DEL', lockKey)
        redis.call('SADD', KEYS[2], jobId)`,
)}
if #matched > 0 then redis.call('DEL', KEYS[3]) end
return matched`;

/** Releases the job locks of the dead workers `workerIds`; answers the ids of the jobs released. */
async function releaseLocksOf(redis: Redis, keys: QueueLockKeys, workerIds: readonly string[]): Promise<string[]> {
  if (workerIds.length === 0) return [];
  return (await redis.eval(
    RELEASE_DEAD_LOCKS,
    3,
    keys.activeKey,
    keys.stalledKey,
    keys.stalledCheckKey,
    keys.jobKeyPrefix,
    ...workerIds,
  )) as string[];
}

/**
 * One look for dead workers, from a process whose own workers are `ownIds` (its connection `redis`
 * named `livenessName(ownIds)`): every live process's worker ids from `CLIENT LIST`, and the locks of
 * the workers that vanished since the last look released. Nothing is judged while this connection
 * is not named itself (its view of the others would not be current). Answers the jobs released.
 */
export async function lookForDeaths(
  redis: Redis,
  deaths: ReturnType<typeof createDeathWatch>,
  keys: QueueLockKeys,
  ownIds: readonly string[],
): Promise<string[]> {
  const live = liveWorkerIds((await redis.call('CLIENT', 'LIST', 'TYPE', 'normal')) as string);
  if (!ownIds.every((id) => live.has(id))) {
    deaths.reset();
    return [];
  }
  return releaseLocksOf(redis, keys, deaths.observe(live));
}

/**
 * BullMQ's stalled check, run now: the worker's own method, which its timer runs every
 * SYNTHESIS_STALLED_INTERVAL_MS (not part of BullMQ's typed API). Should a BullMQ release drop it,
 * the timer's next check does the same work a little later.
 */
export async function runStalledCheck(worker: Worker): Promise<void> {
  const check = (worker as unknown as { moveStalledJobsToWait?: () => Promise<void> }).moveStalledJobsToWait;
  if (typeof check === 'function') await check.call(worker);
}
