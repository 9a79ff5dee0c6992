import { Queue, QueueEvents, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { createLogger } from '@platform/logger';
import { voiceAnalysisQueue, type VoiceAnalysisJobData, type VoiceAnalysisJobResult } from '@platform/speech-jobs';
import { newId, type SpeechStore } from '@platform/speech-store';
import { connectRedis } from '@platform/stores';
import { stackEnv, uniqueName } from '@platform/testing';
import type { MeasuredSpeaker } from '@platform/voice-analysis';
import { testStore } from '../../../tests/voices/helpers';
import { startVoiceAnalysisWorker } from '../src/voice-analysis/analysis-worker';

/** A real voice-analysis worker (its built thread, ffmpeg, MongoDB, Redis) on a queue of its own, for tests. */
export interface AnalysisJobs {
  store: SpeechStore;
  /** Adds a job and waits for its result. */
  run(data: VoiceAnalysisJobData, jobId?: string): Promise<VoiceAnalysisJobResult>;
  close(): Promise<void>;
}

export async function startAnalysisJobs(name: string, speakers?: MeasuredSpeaker[]): Promise<AnalysisJobs> {
  const { store, close: closeStore } = await testStore();
  const redis: Redis = await connectRedis(stackEnv().REDIS_URL, { maxRetriesPerRequest: null });
  const workerRedis = redis.duplicate();
  const synthesisQueue = uniqueName(name);
  const worker: Worker = startVoiceAnalysisWorker({
    connection: workerRedis,
    synthesisQueue,
    concurrency: 1,
    store: { mongoUrl: stackEnv().MONGO_URL, dbName: store.connection.name },
    ...(speakers ? { speakers } : {}),
    lockMs: 10_000,
    stalledIntervalMs: 5_000,
    logger: createLogger(`${name}-test`, 'silent'),
  });
  const queue = new Queue<VoiceAnalysisJobData, VoiceAnalysisJobResult>(voiceAnalysisQueue(synthesisQueue), {
    connection: redis,
  });
  const events = new QueueEvents(voiceAnalysisQueue(synthesisQueue), { connection: redis });
  await events.waitUntilReady();
  return {
    store,
    async run(data, jobId = newId()) {
      const job = await queue.add('analyse', data, { jobId });
      return (await job.waitUntilFinished(events, 60_000)) as VoiceAnalysisJobResult;
    },
    async close() {
      await worker.close();
      await Promise.all([events.close(), queue.close()]);
      await Promise.all([workerRedis.quit(), redis.quit()]);
      await closeStore();
    },
  };
}
