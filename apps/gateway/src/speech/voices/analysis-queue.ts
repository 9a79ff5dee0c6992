import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  voiceAnalysisJobId,
  voiceAnalysisQueue,
  type VoiceAnalysisJobData,
  type VoiceAnalysisJobResult,
} from '@platform/speech-jobs';

/** No worker took the job within the start bound: it was withdrawn from the queue, nothing ran. */
export class AnalysisNotStarted extends Error {
  constructor(readonly waitedMs: number) {
    super(`no worker started the voice analysis within ${waitedMs} ms`);
    this.name = 'AnalysisNotStarted';
  }
}

/** The job failed on its workers (a store outage, or lost more often than the stalled retry allows), or overran the finish bound. */
export class AnalysisFailed extends Error {
  constructor(message: string) {
    super(`voice analysis failed: ${message}`);
    this.name = 'AnalysisFailed';
  }
}

export interface AnalysisQueueOptions {
  /** The gateway's Redis connection (duplicated: BullMQ needs its own). */
  redis: Redis;
  /** SYNTHESIS_QUEUE: the analysis queue is named after it. */
  synthesisQueue: string;
  /** A job no worker has started this long after it was added is withdrawn (`AnalysisNotStarted`). */
  startWaitMs: number;
  /** A started job not finished this long after it was added fails (`AnalysisFailed`): above the workers' lock, so a retry after a worker died fits. */
  finishWaitMs?: number;
}

export interface AnalysisQueue {
  /** Adds the job (once per voice change: `voiceAnalysisJobId`) and waits for its result, within the bounds. */
  analyse(data: VoiceAnalysisJobData): Promise<VoiceAnalysisJobResult>;
  close(): Promise<void>;
}

/** Finished jobs are kept a while (their result is read once, by the request that added them). */
const KEEP = { completed: { age: 600, count: 1000 }, failed: { age: 24 * 3600, count: 1000 } };
const UNSTARTED = new Set(['waiting', 'prioritized', 'delayed', 'waiting-children']);

/**
 * The gateway's side of voice-sample analysis: a BullMQ queue the synthesis workers take jobs from
 * (docs/speech.md, "Cloning a voice"), and one QueueEvents stream on which requests wait for their job.
 */
export function createAnalysisQueue(options: AnalysisQueueOptions): AnalysisQueue {
  const name = voiceAnalysisQueue(options.synthesisQueue);
  const connection = options.redis.duplicate({ maxRetriesPerRequest: null });
  connection.on('error', () => undefined); // surfaced by the commands that fail
  const queue = new Queue<VoiceAnalysisJobData, VoiceAnalysisJobResult>(name, { connection });
  queue.on('error', () => undefined);
  const events = new QueueEvents(name, { connection });
  // Not awaited: a gateway that boots while Redis is away serves everything else meanwhile (a job's wait
  // checks whether it finished before it listens, so an event missed while connecting loses nothing).
  events.on('error', () => undefined);
  const finishWaitMs = options.finishWaitMs ?? 120_000;

  return {
    async analyse(data) {
      const job = await queue.add('analyse', data, {
        jobId: voiceAnalysisJobId(data),
        removeOnComplete: KEEP.completed,
        removeOnFail: KEEP.failed,
      });
      let timer: NodeJS.Timeout | undefined;
      // Withdrawn only while no worker holds it: `remove` refuses a locked (started) job, which then runs on.
      const notStarted = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          void (async () => {
            if (!UNSTARTED.has(await job.getState())) return;
            await job.remove();
            reject(new AnalysisNotStarted(options.startWaitMs));
          })().catch(() => undefined);
        }, options.startWaitMs);
      });
      try {
        return (await Promise.race([
          job.waitUntilFinished(events, finishWaitMs),
          notStarted,
        ])) as VoiceAnalysisJobResult;
      } catch (err) {
        if (err instanceof AnalysisNotStarted) throw err;
        throw new AnalysisFailed(err instanceof Error ? err.message : String(err));
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await Promise.allSettled([events.close(), queue.close()]);
      await connection.quit().catch(() => undefined);
    },
  };
}
