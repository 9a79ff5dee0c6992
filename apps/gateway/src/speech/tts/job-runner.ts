import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';
import { endSpan, SpanKind, startSpan, traceCarrier } from '@platform/tracing';
import {
  audioStreamKey,
  cancelKey,
  newJobId,
  readFrames,
  refuseUnstartedJob,
  type BlockingPool,
  type ChunkFrame,
  type SynthesisJobData,
} from '@platform/speech-jobs';

export type JobInput = Omit<SynthesisJobData, 'v' | 'jobId' | 'keyPrefix' | 'createdAt' | 'deadlineAt'>;

interface RunOptions {
  priority: number;
  /** Aborted when the client goes away: the job is cancelled. */
  signal: AbortSignal;
  /** When the generation was asked for (the job's `createdAt`); default now. */
  createdAt?: number;
}

export interface JobRunner {
  /** A fresh job id (also the history item id). */
  newJobId(): string;
  /**
   * Enqueues a job and yields its frames in order until the last one. Stopping early (break,
   * abort, error) cancels the job; the job's keys are removed either way.
   */
  run(jobId: string, input: JobInput, options: RunOptions): AsyncGenerator<ChunkFrame>;
  close(): Promise<void>;
}

interface RunnerDeps {
  queue: Queue<SynthesisJobData>;
  pool: BlockingPool;
  redis: Redis;
  logger: Logger;
  keyPrefix: string;
  frameTimeoutMs: number;
  /**
   * A job no worker has started this long after it was queued is refused (`QueueWaitExceeded`):
   * every worker's real-time slots are taken, and the client is better told to retry than left
   * waiting. 0 = no bound (the frame timeout alone).
   */
  queueWaitMs: number;
  /** Finished jobs kept for the queue dashboard, newest first; older ones are removed as new ones finish. */
  keep: { completed: number; failed: number };
}

/** The cancel flag outlives the worker's longest wait for its next check, then expires. */
const CANCEL_TTL_SECONDS = 60;

/**
 * No worker started the job within the wait bound, and none will (the job is refused atomically
 * against a worker's claim, `refuseUnstartedJob`): the client gets 503 with `Retry-After` (REST)
 * or close 1013 (WebSocket), and is charged nothing.
 */
export class QueueWaitExceeded extends Error {
  constructor(readonly waitedMs: number) {
    super(`no synthesis worker could start the job within ${waitedMs} ms`);
    this.name = 'QueueWaitExceeded';
  }
}

export function createJobRunner(deps: RunnerDeps): JobRunner {
  const active = new Set<AbortController>();
  return {
    newJobId,
    async *run(jobId, input, options) {
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      options.signal.addEventListener('abort', onAbort, { once: true });
      active.add(controller);
      const streamKey = audioStreamKey(deps.keyPrefix, jobId);
      let finished = false;
      let healthy = true;
      let failure: unknown;
      let frames = 0;
      let refused = false;
      let waitBound: NodeJS.Timeout | undefined;
      // "Subscribe" before enqueueing: hold the reading connection first, then add the job. The
      // stream is read from its beginning, so frames written before the first read are not lost.
      const conn = await deps.pool.acquire();
      // From enqueueing to the last frame; the worker's span is its child (the job carries its context).
      const span = startSpan('synthesis job', {
        kind: SpanKind.PRODUCER,
        attributes: { 'synthesis.job_id': jobId, 'synthesis.model': input.modelId },
      });
      try {
        const now = Date.now();
        const data: SynthesisJobData = {
          ...input,
          v: 1,
          jobId,
          keyPrefix: deps.keyPrefix,
          createdAt: options.createdAt ?? now,
          deadlineAt: now + deps.frameTimeoutMs,
          trace: traceCarrier(span),
        };
        await deps.queue.add('synthesize', data, {
          jobId,
          priority: options.priority,
          attempts: 1,
          removeOnComplete: { count: deps.keep.completed },
          removeOnFail: { count: deps.keep.failed },
        });
        if (deps.queueWaitMs > 0) {
          waitBound = setTimeout(() => {
            // The owner key decides: a worker that claimed the job first keeps it, and the client
            // keeps waiting for its audio; otherwise no worker will ever run it.
            refuseUnstartedJob(deps.redis, deps.keyPrefix, jobId).then(
              (ok) => {
                if (!ok) return;
                refused = true;
                controller.abort();
              },
              () => undefined,
            );
          }, deps.queueWaitMs);
        }
        for await (const frame of readFrames(conn, streamKey, {
          idleTimeoutMs: deps.frameTimeoutMs,
          signal: controller.signal,
        })) {
          if (frame.type === 'end' || frame.type === 'error' || frame.type === 'cancelled') finished = true;
          if (frames++ === 0) span.addEvent('first frame');
          if (finished) span.addEvent(frame.type);
          yield frame;
        }
        if (refused) throw new QueueWaitExceeded(deps.queueWaitMs);
      } catch (err) {
        healthy = false;
        failure = err;
        throw err;
      } finally {
        clearTimeout(waitBound);
        endSpan(span, failure);
        options.signal.removeEventListener('abort', onAbort);
        active.delete(controller);
        deps.pool.release(conn, healthy && !controller.signal.aborted);
        if (refused) {
          deps.logger.info(
            { jobId, waitMs: deps.queueWaitMs },
            'synthesis job refused: no worker started it within the wait bound',
          );
          // Still waiting in the queue: take it out (a worker that takes it anyway drops it unrun).
          await deps.queue.remove(jobId).catch(() => undefined);
        } else if (!finished) {
          deps.logger.info({ jobId }, 'synthesis job abandoned by its client; cancelling');
          await deps.redis.set(cancelKey(deps.keyPrefix, jobId), '1', 'EX', CANCEL_TTL_SECONDS).catch(() => undefined);
          // Not started yet? Then it never needs to start.
          await deps.queue.remove(jobId).catch(() => undefined);
        }
        await deps.redis.del(streamKey).catch(() => undefined);
      }
    },
    async close() {
      for (const c of active) c.abort();
    },
  };
}
