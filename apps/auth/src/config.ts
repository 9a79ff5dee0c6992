import { env, loadConfig } from '@platform/config';
import { z } from 'zod';

export const authConfigShape = {
  PORT: env.port(8081),
  HOST: env.host,
  LOG_LEVEL: env.logLevel,
  MONGO_URL: env.mongoUrl,
  MONGO_DB: z.string().min(1).default('auth'),
  REDIS_URL: env.redisUrl,
  INTERNAL_SECRET: env.internalSecret,
  /** The issuer as clients see it (through the gateway). */
  PUBLIC_URL: env.httpUrl.default('http://127.0.0.1:8080'),
};

export type AuthConfig = ReturnType<typeof loadAuthConfig>;
export function loadAuthConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(authConfigShape, source);
}
