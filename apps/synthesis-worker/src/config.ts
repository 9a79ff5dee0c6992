import { env, loadConfig } from '@platform/config';
import { z } from 'zod';

export const workerConfigShape = {
  /** Port of the worker's health endpoints (it serves no public traffic). */
  PORT: env.port(8083),
  HOST: env.host,
  LOG_LEVEL: env.logLevel,
  MONGO_URL: env.mongoUrl,
  MONGO_DB: z.string().min(1).default('speech'),
  REDIS_URL: env.redisUrl,
  /** Jobs one worker process synthesises at once (each runs one eSpeak NG process at a time). */
  WORKER_CONCURRENCY: env.positiveInt(2),
  /** BullMQ queue name; must match the gateway's (tests use unique ones). */
  SYNTHESIS_QUEUE: z.string().min(1).max(100).default('synthesis'),
  /** Prefix of the per-job Redis keys; must match the gateway's. */
  SPEECH_KEY_PREFIX: z.string().min(1).max(100).default('speech'),
  /** A job whose worker stops renewing its lock for this long is taken as crashed. */
  SYNTHESIS_LOCK_MS: env.positiveInt(10_000),
  /** Where scripts/fetch-voices.mjs put the Piper voice (the neural model); empty = eSpeak NG only. */
  PIPER_VOICES_DIR: z.string().default(''),
  /** eSpeak NG executable. */
  ESPEAK_BINARY: z.string().min(1).default('espeak-ng'),
};

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;
export function loadWorkerConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(workerConfigShape, source);
}
