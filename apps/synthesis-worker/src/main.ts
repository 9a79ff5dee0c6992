import './tracing';
import os from 'node:os';
import { WaitingError, Worker, type Job } from 'bullmq';
import { createLogger, logProcessWarnings } from '@platform/logger';
import { exitOnBootFailure, listenOn, runService } from '@platform/service';
import { loadVoiceCatalogue } from '@platform/speech-engine';
import type { SynthesisJobData } from '@platform/speech-jobs';
import {
  createSpeechStore,
  createStoreHooks,
  premadeFromCatalogue,
  releaseStaleReservations,
} from '@platform/speech-store';
import { connectMongo, connectRedis, storeReadiness } from '@platform/stores';
import { contextFrom, inSpan, SpanKind } from '@platform/tracing';
import { loadWorkerConfig } from './config';
import { runStalledCheck } from './liveness/death-watch';
import { startLockHeartbeat } from './liveness/lock-heartbeat';
import { startTakeoverSlot } from './liveness/takeover-slot';
import { workerMetrics as metrics } from './synthesis/metrics';
import { closeNeuralModel, neuralReadiness, preloadNeuralModel } from './synthesis/neural-model';
import { resolveCapacity } from './synthesis/realtime-capacity';
import { failLostJob, processJob } from './synthesis/process-job';
import { startStaleReservationSweeper } from './quota/stale-reservations';
import { startVoiceAnalysisWorker } from './voice-analysis/analysis-worker';
import { measureSpeakers, redisSpeakerCache } from './voice-analysis/speaker-features';

/**
 * How often the queue lets one job be taken over at all: far above any real run of worker deaths
 * (each one that finds the job moved on is one more piece done), so only SYNTHESIS_MAX_RESUMES'
 * rule of takeovers without progress fails a job in practice.
 */
const QUEUE_TAKEOVER_BACKSTOP = 1000;

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const logger = createLogger('synthesis-worker', config.LOG_LEVEL);
  logProcessWarnings(logger);
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const redis = await connectRedis(config.REDIS_URL);
  // History (the speech store in the speech database): one record per finished job, keyed by job id.
  // The voices directory's catalogue, as the gateway reads it (a bad catalogue file stops the boot here).
  const catalogue = loadVoiceCatalogue(config.PIPER_VOICES_DIR);
  const store = await createSpeechStore(mongo, { premade: premadeFromCatalogue(catalogue.voices) });
  const { recordHistory } = createStoreHooks(store);
  // Reservations a dead gateway never settled go back to their accounts (docs/speech.md, Quotas).
  const sweeper = startStaleReservationSweeper({
    release: (olderThanMs) => releaseStaleReservations(store, olderThanMs),
    logger,
    intervalMs: config.SPEECH_RESERVATION_SWEEP_MS,
    maxAgeMs: config.SPEECH_RESERVATION_MAX_AGE_MS,
  });
  // Before taking jobs, so no job stalls behind the load; the worker is not ready (and other
  // workers serve) meanwhile.
  const neural = await preloadNeuralModel(
    config.PIPER_VOICES_DIR,
    config.NEURAL_INFERENCE_THREADS,
    logger,
    catalogue,
    config.NEURAL_PRECISION,
  );
  // The jobs this worker runs at once: the streams it keeps real-time. A job beyond them waits in
  // the queue (where the gateway bounds its wait) rather than slow every running stream down.
  const capacity = await resolveCapacity(
    {
      configured: config.WORKER_REALTIME_STREAMS,
      cores: config.WORKER_CORES,
      safety: config.WORKER_REALTIME_SAFETY,
      max: config.WORKER_CONCURRENCY,
      espeakBinary: config.ESPEAK_BINARY,
    },
    neural,
    logger,
  );
  metrics.realtimeSlots(capacity.slots);
  const hardStop = new AbortController();
  // Aborted when a drain's bound (WORKER_DRAIN_MS) is over: the jobs still running are handed over.
  const handOver = new AbortController();

  // BullMQ's blocking connection must retry forever (its own requirement).
  const workerConnection = redis.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
  workerConnection.on('error', () => undefined);
  // Stored with every frame this process writes: which worker wrote which part of a job's audio.
  const workerName = `${os.hostname()}:${process.pid}`;
  // `heartbeat` (the lock heartbeat, which aborts a job whose lock is lost) is made below, once the
  // workers have ids; BullMQ hands out the first job only after connecting, so it is there by then.
  // A child of the gateway's span for the job (W3C Trace Context in the job's data), active while
  // the job runs so the job's log lines carry its trace id.
  const runJob = async (job: Job<SynthesisJobData>, token?: string) => {
    const lost = heartbeat.hold(job.id ?? job.data.jobId);
    metrics.slotsInUse(1);
    try {
      const outcome = await inSpan(
        'synthesis job',
        {
          kind: SpanKind.CONSUMER,
          parent: contextFrom(job.data.trace),
          attributes: { 'synthesis.job_id': job.data.jobId, 'synthesis.model': job.data.modelId },
        },
        () =>
          processJob(job.data, {
            redis,
            logger,
            queue: config.SYNTHESIS_QUEUE,
            enqueuedAt: job.timestamp,
            recordHistory,
            neural,
            espeakBinary: config.ESPEAK_BINARY,
            signal: hardStop.signal,
            handOver: handOver.signal,
            lost,
            attempt: { worker: workerName, takeovers: job.stalledCounter },
            maxResumes: config.SYNTHESIS_MAX_RESUMES,
          }),
      );
      if (outcome === 'handed-over') {
        // Back to the queue without counting as a stall (the resume limit is for workers that die)
        // and without failing: another worker resumes it. Without a priority it goes to the head of
        // the `wait` list, where a lost worker's jobs go: ahead of every new job, and the takeover
        // slot of a worker whose regular slots are busy takes it at once (takeover-slot.ts).
        await job.changePriority({ priority: 0 });
        await job.moveToWait(token);
        throw new WaitingError();
      }
      return outcome;
    } finally {
      metrics.slotsInUse(-1);
      heartbeat.release(job.id ?? job.data.jobId);
    }
  };
  const lockOptions = {
    // A dead worker's job is found within about a lock period plus a check interval and goes
    // back to the queue's head; the next worker resumes it after the audio already sent
    // (process-job.ts). The lock heartbeat thread renews the locks four times per period, off the
    // main loop, so a busy worker is never taken for dead; BullMQ's own renewal stays as a second.
    lockDuration: config.SYNTHESIS_LOCK_MS,
    lockRenewTime: Math.max(1, Math.floor(config.SYNTHESIS_LOCK_MS / 4)),
    stalledInterval: config.SYNTHESIS_STALLED_INTERVAL_MS,
    // The resume limit counts takeovers without progress (SYNTHESIS_MAX_RESUMES, process-job.ts):
    // a job whose workers die for other reasons is resumed as often as that happens. The queue's
    // own count of takeovers is only a backstop.
    maxStalledCount: QUEUE_TAKEOVER_BACKSTOP,
  };
  const worker = new Worker<SynthesisJobData>(config.SYNTHESIS_QUEUE, runJob, {
    connection: workerConnection,
    concurrency: capacity.slots,
    ...lockOptions,
  });
  // The takeover slot's fetcher: a manual worker (no processor) that only the slot drives.
  const takeoverFetcher = new Worker<SynthesisJobData>(config.SYNTHESIS_QUEUE, null, {
    connection: workerConnection,
    autorun: false,
    ...lockOptions,
  });
  const heartbeat = startLockHeartbeat(
    {
      redisUrl: config.REDIS_URL,
      activeKey: worker.keys.active!,
      stalledKey: worker.keys.stalled!,
      stalledCheckKey: worker.keys['stalled-check']!,
      jobKeyPrefix: worker.toKey(''),
      workerIds: [worker.id, takeoverFetcher.id],
      lockMs: config.SYNTHESIS_LOCK_MS,
      intervalMs: Math.max(1, Math.floor(config.SYNTHESIS_LOCK_MS / 4)),
      deathWatchMs: config.SYNTHESIS_DEATH_WATCH_MS,
    },
    {
      // A dead worker's locks were released: run the stalled check now rather than at its next
      // interval, and let the takeover slot look at once.
      released(jobIds) {
        logger.warn({ jobIds }, 'a synthesis worker died (its Redis connection closed); releasing its jobs');
        void runStalledCheck(worker)
          .catch((err: unknown) => logger.warn({ err }, 'stalled check after a worker death failed'))
          .finally(() => takeoverSlot.wake());
      },
      watchFailed(reason) {
        logger.warn(
          { reason },
          'the death watch is off (CLIENT LIST refused): a dead worker is found by its locks lapsing',
        );
      },
    },
  );
  const takeoverSlot = startTakeoverSlot({
    fetcher: takeoverFetcher,
    redis,
    waitKey: worker.keys.wait!,
    pollMs: config.SYNTHESIS_TAKEOVER_POLL_MS,
    run: runJob,
    logger,
  });
  const onFailed = (job: Job<SynthesisJobData> | undefined, err: Error) => {
    logger.warn({ jobId: job?.id, err: err.message }, 'synthesis job failed');
    // Lost more often than the backstop allows: the queue fails it without running it, so
    // its client is told here rather than after the gateway's frame timeout.
    if (job && job.stalledCounter > QUEUE_TAKEOVER_BACKSTOP) {
      metrics.jobLost({ model: job.data.modelId });
      failLostJob(redis, job.data, { token: `${workerName}#failed`, worker: workerName }).catch((e: unknown) =>
        logger.error({ err: e, jobId: job.id }, 'ending a lost synthesis job failed'),
      );
    }
  };
  for (const w of [worker, takeoverFetcher]) {
    w.on('error', (err) => logger.warn({ err: err.message }, 'synthesis worker error'));
    w.on('failed', onFailed);
  }
  worker.on('stalled', (jobId) => logger.warn({ jobId }, 'synthesis job lost by its worker; back in the queue'));
  // Voice-sample analysis for cloning (the gateway enqueues it): on threads of their own, beside
  // synthesis; with several installed speakers, each measured first for clones to start from (once per
  // voice file: the features are kept in Redis by its checksum). The measuring (about a second per
  // speaker, off the event loop) runs after boot: readiness and synthesis never wait for it, only clone
  // analysis does, its jobs waiting in their queue meanwhile.
  const analysis = measureSpeakers(neural, logger, {
    espeakBinary: config.ESPEAK_BINARY,
    cache: redisSpeakerCache(redis, config.SPEECH_KEY_PREFIX, logger),
  }).then((speakers) =>
    startVoiceAnalysisWorker({
      speakers,
      connection: workerConnection,
      synthesisQueue: config.SYNTHESIS_QUEUE,
      concurrency: config.VOICE_ANALYSIS_CONCURRENCY,
      store: { mongoUrl: config.MONGO_URL, dbName: config.MONGO_DB },
      lockMs: config.VOICE_ANALYSIS_LOCK_MS,
      stalledIntervalMs: config.VOICE_ANALYSIS_STALLED_INTERVAL_MS,
      logger,
    }),
  );
  // A worker that cannot analyse (its thread's build missing) stops as a boot failure would.
  analysis.catch(exitOnBootFailure('synthesis-worker'));

  await runService({
    name: 'synthesis-worker',
    ...listenOn(config),
    logger,
    checks: {
      ...storeReadiness(mongo, redis),
      neural: async () => neuralReadiness(neural),
    },
    // Work arrives through the BullMQ queue; HTTP is health only (metrics: METRICS_PORT).
    mount: () => undefined,
    async stopIntake() {
      // Drain: take no new jobs, finish the ones in hand; those still running after WORKER_DRAIN_MS
      // are handed over at their next piece (docs/operations.md, "Rolling out and scaling down").
      const bound = setTimeout(() => {
        logger.info(
          { drainMs: config.WORKER_DRAIN_MS },
          'drain bound reached; handing the running synthesis jobs over',
        );
        handOver.abort();
      }, config.WORKER_DRAIN_MS);
      await Promise.all([
        worker.close(),
        analysis.then((a) => a.close()),
        takeoverSlot.close().then(() => takeoverFetcher.close()),
      ]);
      clearTimeout(bound);
    },
    async close() {
      hardStop.abort();
      await heartbeat.close();
      await sweeper.stop();
      await Promise.allSettled([mongo.close(), redis.quit(), workerConnection.quit(), closeNeuralModel(neural)]);
    },
  });
}

main().catch(exitOnBootFailure('synthesis-worker'));
