import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';
import { voiceAnalysisQueue, type VoiceAnalysisJobData, type VoiceAnalysisJobResult } from '@platform/speech-jobs';
import type { MeasuredSpeaker } from '@platform/voice-analysis';

/** The speech database the analysis threads read samples from, given to each thread as it starts. */
export interface SampleStoreConfig {
  mongoUrl: string;
  dbName: string;
}

/** What each analysis thread starts with: where the samples are, and the installed speakers a clone may start from. */
export interface AnalysisThreadData extends SampleStoreConfig {
  /** Every installed speaker's features (`measureSpeakers`); empty with one speaker installed. */
  speakers: MeasuredSpeaker[];
}

export interface VoiceAnalysisWorkerOptions {
  /** A connection BullMQ may block on (`maxRetriesPerRequest: null`). */
  connection: Redis;
  /** The synthesis queue's name: the analysis queue is named after it (`voiceAnalysisQueue`). */
  synthesisQueue: string;
  /** Jobs this process analyses at once, each on a thread of its own (VOICE_ANALYSIS_CONCURRENCY). */
  concurrency: number;
  store: SampleStoreConfig;
  /** The installed speakers, measured at boot (`measureSpeakers`): a new clone starts from the nearest. */
  speakers?: MeasuredSpeaker[];
  /**
   * The job lock: a worker that dies mid-analysis loses it after `lockMs`, and the stalled check (every
   * `stalledIntervalMs`) puts the job back for another worker (BullMQ's stalled retry).
   */
  lockMs: number;
  stalledIntervalMs: number;
  logger: Logger;
}

/**
 * The compiled thread entry. Resolved through the worker's `dist` so that code loaded from the TypeScript
 * sources (the tests) starts the built thread as well: a worker thread runs JavaScript only.
 */
const THREAD_ENTRY = path.resolve(__dirname, '..', '..', 'dist', 'voice-analysis', 'analysis-thread.js');

/**
 * Takes voice-analysis jobs (docs/speech.md, "Cloning a voice"): each runs on a worker thread (BullMQ's
 * sandboxed processor) at the lowest CPU priority, never on this process's event loop. A job may run
 * twice when its worker died (stalled retry, at most twice more): it only reads and measures, so a
 * re-run answers the same.
 */
export function startVoiceAnalysisWorker(options: VoiceAnalysisWorkerOptions): Worker {
  if (!fs.existsSync(THREAD_ENTRY))
    throw new Error(`voice analysis thread ${THREAD_ENTRY} is missing: build the project (npm run build)`);
  const worker = new Worker<VoiceAnalysisJobData, VoiceAnalysisJobResult>(
    voiceAnalysisQueue(options.synthesisQueue),
    THREAD_ENTRY,
    {
      connection: options.connection,
      concurrency: options.concurrency,
      useWorkerThreads: true,
      workerThreadsOptions: {
        workerData: { ...options.store, speakers: options.speakers ?? [] } satisfies AnalysisThreadData,
      },
      lockDuration: options.lockMs,
      stalledInterval: options.stalledIntervalMs,
      maxStalledCount: 2,
    },
  );
  worker.on('error', (err) => options.logger.warn({ err: err.message }, 'voice analysis worker error'));
  worker.on('failed', (job, err) =>
    options.logger.warn({ jobId: job?.id, err: err.message }, 'voice analysis job failed'),
  );
  worker.on('stalled', (jobId) =>
    options.logger.warn({ jobId }, 'voice analysis job lost by its worker; back in the queue'),
  );
  return worker;
}
