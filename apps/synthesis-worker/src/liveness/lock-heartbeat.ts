import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { HeartbeatCommand, HeartbeatConfig, HeartbeatReport } from './heartbeat-protocol';

/**
 * The built thread: a worker thread runs JavaScript only, so code run from the TypeScript sources
 * (the tests) starts the built one as well.
 */
const THREAD_ENTRY = path.resolve(__dirname, '..', '..', 'dist', 'liveness', 'heartbeat-thread.js');

/**
 * Keeps this process's BullMQ job locks alive from a thread of its own (heartbeat-thread.ts), so a
 * busy main loop is never taken for a dead worker (docs/decisions.md). `hold` a job while running
 * it: if its lock cannot be renewed (another worker took the job over, or it lapsed), the signal
 * returned aborts at once.
 */
interface LockHeartbeat {
  hold(jobId: string): AbortSignal;
  release(jobId: string): void;
  close(): Promise<void>;
}

/** What the heartbeat thread's death watch tells the main thread (death-watch.ts). */
interface DeathWatchEvents {
  /** Jobs of dead workers whose locks were released: a stalled check now puts them back in the queue. */
  released(jobIds: string[]): void;
  /** The death watch stopped for good (the server refuses CLIENT LIST): lock expiry alone finds dead workers. */
  watchFailed(reason: string): void;
}

export function startLockHeartbeat(config: HeartbeatConfig, events: DeathWatchEvents): LockHeartbeat {
  if (!fs.existsSync(THREAD_ENTRY))
    throw new Error(`lock heartbeat thread ${THREAD_ENTRY} is missing: build the project (npm run build)`);
  const thread = new Worker(THREAD_ENTRY, { workerData: config });
  // The process ends when its work does; the heartbeat never keeps it alive.
  thread.unref();
  const held = new Map<string, AbortController>();
  const send = (command: HeartbeatCommand) => thread.postMessage(command);
  thread.on('message', (report: HeartbeatReport) => {
    if ('lost' in report) for (const jobId of report.lost) held.get(jobId)?.abort(new LockLostError(jobId));
    else if ('released' in report) events.released(report.released);
    else events.watchFailed(report.watchFailed);
  });
  // Without its heartbeat the worker would lose every job it runs: better to stop than to be taken for dead.
  thread.on('error', (err) => {
    throw err;
  });
  return {
    hold(jobId) {
      const controller = new AbortController();
      held.set(jobId, controller);
      send({ hold: jobId });
      return controller.signal;
    },
    release(jobId) {
      held.delete(jobId);
      send({ release: jobId });
    },
    async close() {
      await thread.terminate();
    },
  };
}

/** The job's lock could not be renewed: another worker may be running it now. */
class LockLostError extends Error {
  constructor(jobId: string) {
    super(`the lock of synthesis job ${jobId} was lost`);
    this.name = 'LockLostError';
  }
}
