import { env, loadConfig } from '@platform/config';
import { z } from 'zod';

export const contentConfigShape = {
  PORT: env.port(8082),
  HOST: env.host,
  LOG_LEVEL: env.logLevel,
  MONGO_URL: env.mongoUrl,
  MONGO_DB: z.string().min(1).default('content'),
  REDIS_URL: env.redisUrl,
  KAFKA_BROKERS: env.kafkaBrokers,
  INTERNAL_SECRET: env.internalSecret,
  AUTH_URL: env.httpUrl.default('http://127.0.0.1:8081'),
};

export type ContentConfig = ReturnType<typeof loadContentConfig>;
export function loadContentConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(contentConfigShape, source);
}
