/**
 * The messages between the worker's main thread and its lock heartbeat thread (lock-heartbeat.ts,
 * heartbeat-thread.ts): one contract, both sides import it.
 */

/** What the heartbeat thread starts with (its `workerData`). */
export interface HeartbeatConfig {
  redisUrl: string;
  /** BullMQ's keys of the queue: its `active` list, its `stalled` set, and the prefix of a job's keys (`bull:synthesis:`). */
  activeKey: string;
  stalledKey: string;
  jobKeyPrefix: string;
  /** The ids of this process's BullMQ workers: the locks whose token starts with `<id>:` are this process's. */
  workerIds: string[];
  /** The lock's lifetime, set again on every beat (milliseconds). */
  lockMs: number;
  /** Time between beats (milliseconds). */
  intervalMs: number;
}

/** Main → thread: a job this process is running (a lost lock is reported for it), or no longer. */
export type HeartbeatCommand = { hold: string } | { release: string };

/** Thread → main: the locks of held jobs that could not be renewed (another worker may own the job now). */
export interface HeartbeatReport {
  lost: string[];
}
