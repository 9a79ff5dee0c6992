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
  WORKER_CONCURRENCY: env.positiveInt(2),
};

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;
export function loadWorkerConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(workerConfigShape, source);
}
