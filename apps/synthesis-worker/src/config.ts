import { env, loadConfig } from '@platform/config';
import { NEURAL_PRECISIONS } from '@platform/speech-engine';
import { DEFAULT_KEY_PREFIX, SYNTHESIS_QUEUE } from '@platform/speech-jobs';
import { z } from 'zod';

export const workerConfigShape = {
  /** Port of the worker's health endpoints (it serves no public traffic). */
  PORT: env.port(8083),
  HOST: env.host,
  METRICS_PORT: env.metricsPort,
  LOG_LEVEL: env.logLevel,
  MONGO_URL: env.mongoUrl,
  MONGO_DB: z.string().min(1).default('speech'),
  REDIS_URL: env.redisUrl,
  /**
   * Jobs one worker process synthesises at once (each runs one eSpeak NG process or one neural
   * inference at a time). 2 on a 2-core machine: two one-thread inferences at once gave more audio
   * per second than one two-thread inference (docs/operations.md).
   */
  WORKER_CONCURRENCY: env.positiveInt(2),
  /**
   * Streams this worker keeps real-time: the jobs it runs at once (its slots; a job that finds none
   * free waits in the queue). 0 = measured at boot with the neural model (one stream alone through a
   * contention model, then that many at once: the most whose every later piece is ready before the
   * one before it has played, docs/operations.md "Real-time capacity"), at most WORKER_CONCURRENCY;
   * a positive number is used as it is and skips the calibration.
   */
  WORKER_REALTIME_STREAMS: z.coerce.number().int().min(0).max(1000).default(0),
  /**
   * The cores this worker may use, for the calibration's arithmetic. 0 = every core the process
   * sees; several workers on one machine each see all of them, so set cores / workers there.
   */
  WORKER_CORES: z.coerce.number().min(0).max(1024).default(0),
  /**
   * For the calibration: the fraction of a piece's playing time the next piece's rendering may take
   * with the worker's streams running at once; the rest absorbs GC, bursts and other processes.
   */
  WORKER_REALTIME_SAFETY: z.coerce.number().gt(0).max(1).default(0.7),
  /**
   * Threads one neural inference uses (ONNX Runtime's intra-op threads). Concurrent jobs each run
   * their own inference, so WORKER_CONCURRENCY × this should not exceed the worker's cores.
   */
  NEURAL_INFERENCE_THREADS: env.positiveInt(1),
  /**
   * The neural model's precision: `fp32`, the model as Piper publishes it, or `int8`, its quantised
   * variant `<voice>.int8.onnx` (scripts/fetch-voices.mjs makes it beside the model): under a third of
   * the file, at the speed and word error rate docs/benchmarks.md records. A voice without the
   * variant serves fp32, with a warning in the log.
   */
  NEURAL_PRECISION: z.enum(NEURAL_PRECISIONS).default('fp32'),
  /** BullMQ queue name; must match the gateway's (tests use unique ones): both default to libs/speech-jobs' name. */
  SYNTHESIS_QUEUE: z.string().min(1).max(100).default(SYNTHESIS_QUEUE),
  /** Prefix of the per-job Redis keys; must match the gateway's: both default to libs/speech-jobs' prefix. */
  SPEECH_KEY_PREFIX: z.string().min(1).max(100).default(DEFAULT_KEY_PREFIX),
  /**
   * A job whose worker stops renewing its lock for this long is taken as lost. The worker's lock
   * heartbeat thread renews it four times per period, off the main loop, so only a dead (or frozen)
   * process misses it. With SYNTHESIS_STALLED_INTERVAL_MS it bounds how soon another worker resumes
   * the job of a dead one (docs/operations.md, "A worker dies mid-job").
   */
  SYNTHESIS_LOCK_MS: env.positiveInt(1_000),
  /**
   * How often an idle takeover slot (the one slot beyond WORKER_CONCURRENCY that only jobs taken
   * over from a lost worker use) looks for one in the queue (milliseconds).
   */
  SYNTHESIS_TAKEOVER_POLL_MS: env.positiveInt(100),
  /**
   * On SIGTERM the worker takes no new jobs and lets the ones in hand finish for at most this long
   * (milliseconds); a job still running then stops at its next piece and goes back to the queue,
   * where another worker continues it after the audio already sent (never failed, not counted
   * against SYNTHESIS_MAX_RESUMES). The pod's termination grace period must exceed it.
   */
  WORKER_DRAIN_MS: env.positiveInt(20_000),
  /**
   * How often each worker's lock heartbeat thread looks for dead workers (milliseconds; 0 = never):
   * a worker process whose Redis connection vanished from CLIENT LIST (a killed process's sockets
   * close at once; a busy one's stay open) has its job locks released, so its jobs are taken over
   * within about this long instead of after SYNTHESIS_LOCK_MS, which stays the fallback for a
   * frozen or cut-off worker. Needs CLIENT LIST and CLIENT SETNAME (a server that refuses them
   * leaves lock expiry alone, with a warning).
   */
  SYNTHESIS_DEATH_WATCH_MS: z.coerce.number().int().min(0).max(60_000).default(100),
  /**
   * How often the workers look for jobs whose lock has lapsed (BullMQ's stalled-job check; one
   * check per interval across all workers, a single Lua call). With the lock it bounds a takeover.
   */
  SYNTHESIS_STALLED_INTERVAL_MS: env.positiveInt(250),
  /**
   * How often in a row one job may be taken over from lost workers without having moved on (no new
   * audio since the takeover before); once more and it fails (the client gets the documented 503).
   * Bounds the damage of a job that kills every worker that runs it; a job whose workers die for
   * other reasons, and so progresses between deaths, is resumed every time.
   */
  SYNTHESIS_MAX_RESUMES: z.coerce.number().int().min(0).max(100).default(2),
  /** The voices directory (the gateway's): every Piper voice in it is loaded at boot; empty = eSpeak NG only. */
  PIPER_VOICES_DIR: z.string().default(''),
  /**
   * How often this worker releases character reservations left by a gateway that died before
   * settling them (milliseconds; 0 = never).
   */
  SPEECH_RESERVATION_SWEEP_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * Age at which an unsettled reservation is taken as abandoned. Must exceed the longest a
   * generation can take to reach its client (a 5 000-character text is about 5 minutes of audio,
   * and a slow /stream client receives it at its own pace).
   */
  SPEECH_RESERVATION_MAX_AGE_MS: env.positiveInt(15 * 60_000),
  /**
   * Voice-sample analyses (cloning, docs/speech.md) this worker runs at once, each on a thread of its own
   * at the lowest CPU priority: seconds of CPU for long samples, taken from the synthesis streams' cores
   * only when they leave it.
   */
  VOICE_ANALYSIS_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
  /**
   * An analysis job whose worker stops renewing its lock for this long is taken as lost and run again
   * by another worker (milliseconds). Renewed by the worker's event loop, so it must exceed the longest
   * that loop is ever busy; the gateway's wait for a result (120 s) must exceed it.
   */
  VOICE_ANALYSIS_LOCK_MS: env.positiveInt(10_000),
  /** How often the workers look for analysis jobs whose lock has lapsed (milliseconds). */
  VOICE_ANALYSIS_STALLED_INTERVAL_MS: env.positiveInt(5_000),
  /** eSpeak NG executable. */
  ESPEAK_BINARY: z.string().min(1).default('espeak-ng'),
};

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;
export function loadWorkerConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(workerConfigShape, source);
}
