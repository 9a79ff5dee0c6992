/**
 * The messages between the worker's main thread and its lock heartbeat thread (lock-heartbeat.ts,
 * heartbeat-thread.ts): one contract, both sides import it.
 */

/** What the heartbeat thread starts with (its `workerData`). */
export interface HeartbeatConfig {
  redisUrl: string;
  /**
   * BullMQ's keys of the queue: its `active` list, its `stalled` set, the stalled check's lock and
   * the prefix of a job's keys (`bull:synthesis:`).
   */
  activeKey: string;
  stalledKey: string;
  stalledCheckKey: string;
  jobKeyPrefix: string;
  /** The ids of this process's BullMQ workers: the locks whose token starts with `<id>:` are this process's. */
  workerIds: string[];
  /** The lock's lifetime, set again on every beat (milliseconds). */
  lockMs: number;
  /** Time between beats (milliseconds). */
  intervalMs: number;
  /** How often to look for dead workers by their vanished connections (death-watch.ts; milliseconds, 0 = never). */
  deathWatchMs: number;
}

/** Main → thread: a job this process is running (a lost lock is reported for it), or no longer. */
export type HeartbeatCommand = { hold: string } | { release: string };

/**
 * Thread → main: `lost`, the locks of held jobs that could not be renewed (another worker may own
 * the job now); `released`, jobs of dead workers whose locks the death watch released (a stalled
 * check puts them back in the queue); `watchFailed`, why the death watch stopped (lock expiry alone
 * finds dead workers then).
 */
export type HeartbeatReport = { lost: string[] } | { released: string[] } | { watchFailed: string };
