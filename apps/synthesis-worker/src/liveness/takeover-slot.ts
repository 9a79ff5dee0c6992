import type { Redis } from 'ioredis';
import { WaitingError, type Job, type Worker } from 'bullmq';
import type { Logger } from '@platform/logger';

/**
 * A slot beside the worker's `WORKER_CONCURRENCY` that only takeovers use, so a job whose worker
 * died is resumed at once even when every worker's regular slots are busy (docs/decisions.md).
 *
 * Where a lost job goes: BullMQ's stalled check pushes it to the head of the queue's `wait` list,
 * which every worker reads before the `prioritized` set where new jobs wait (the gateway gives
 * every job its plan's priority, so new jobs never sit in `wait`). A draining worker's job goes
 * there too (main.ts hands it over without a priority). So a non-empty `wait` list means a
 * resumed job is waiting, and this slot then fetches the head of the queue with a manual BullMQ
 * worker (`getNextJob`, no processor: its locks are renewed by the lock heartbeat). Should a new
 * job come instead (another worker took the lost one between the look and the fetch), it goes back
 * to the queue untouched.
 */
interface TakeoverSlot {
  /** Looks at the queue now rather than at the next poll (a dead worker's job is on its way there). */
  wake(): void;
  /** Stops fetching and waits for the takeover in hand. */
  close(): Promise<void>;
}

interface TakeoverSlotOptions<T> {
  /** A BullMQ worker made without a processor (`new Worker(queue, null, …)`), fetching for this slot only. */
  fetcher: Worker<T>;
  redis: Redis;
  /** The queue's `wait` list (`fetcher.keys.wait`). */
  waitKey: string;
  /** How often an idle slot looks at the `wait` list (milliseconds). */
  pollMs: number;
  /** Runs a taken-over job to its end; what it returns completes the job, what it throws fails it. */
  run(job: Job<T>, token: string): Promise<unknown>;
  logger: Logger;
}

export function startTakeoverSlot<T>(options: TakeoverSlotOptions<T>): TakeoverSlot {
  const { fetcher, redis, waitKey, pollMs, logger } = options;
  let closed = false;
  let fetches = 0;
  let wake: (() => void) | undefined;
  // A wake that came while the slot was not pausing (mid-look): the next pause ends at once.
  let woken = false;
  const pause = () =>
    new Promise<void>((resolve) => {
      if (woken) {
        woken = false;
        return resolve();
      }
      const timer = setTimeout(resolve, pollMs);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });

  async function takeOne(): Promise<void> {
    if ((await redis.llen(waitKey)) === 0) return pause();
    const token = `${fetcher.id}:${fetches++}`;
    const job = await fetcher.getNextJob(token, { block: false });
    if (!job) return;
    if (job.stalledCounter === 0 && job.priority !== 0) {
      // A new job (the gateway gives each one its plan's priority): not this slot's to run.
      await job.moveToWait(token);
      return;
    }
    try {
      const result = await options.run(job, token);
      await job.moveToCompleted(result, token, false);
    } catch (err) {
      // Already put back in the queue by `run` (a drain handing the job over).
      if (err instanceof WaitingError) return;
      await job.moveToFailed(err instanceof Error ? err : new Error(String(err)), token, false);
    }
  }

  const loop = (async () => {
    while (!closed) {
      await takeOne().catch(async (err: unknown) => {
        logger.warn({ err }, 'takeover slot: fetching a lost synthesis job failed');
        await pause();
      });
    }
  })();

  return {
    wake() {
      if (wake) wake();
      else woken = true;
    },
    async close() {
      closed = true;
      wake?.();
      await loop;
    },
  };
}
