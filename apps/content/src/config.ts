import { env, loadConfig } from '@platform/config';
import { z } from 'zod';

export const contentConfigShape = {
  PORT: env.port(8082),
  HOST: env.host,
  METRICS_PORT: env.metricsPort,
  LOG_LEVEL: env.logLevel,
  MONGO_URL: env.mongoUrl,
  MONGO_DB: z.string().min(1).default('content'),
  REDIS_URL: env.redisUrl,
  /** Prefix of every Redis key content writes (caches, rate limits), so deployments and tests can share a server. */
  REDIS_PREFIX: z.string().max(100).default('content:'),
  KAFKA_BROKERS: env.kafkaBrokers,
  KAFKA_TOPIC_PREFIX: z
    .string()
    .max(100)
    .regex(/^[A-Za-z0-9._-]*$/)
    .default(''),
  INTERNAL_SECRET: env.internalSecret,
  AUTH_URL: env.httpUrl.default('http://127.0.0.1:8081'),
  /** Relay poll interval when idle; commits and the outbox change stream wake it sooner. */
  OUTBOX_POLL_MS: env.positiveInt(200),
  /** How long a commit's wake-up waits for later commits to share the relay's pass (outbox/relay.ts). */
  OUTBOX_LINGER_MS: z.coerce.number().int().min(0).max(1_000).default(30),
  /** Turn the relay off on replicas that should only serve requests. */
  OUTBOX_RELAY: env.boolean(true),
  /**
   * Cost budget of one GraphQL request (libs/graphql-schema's cost model). Keep it at least the gateway's
   * SUBSCRIPTION_MAX_COST: the gateway's nested fetches for subscriptions are requests here too.
   */
  GRAPHQL_MAX_COST: env.positiveInt(5_000),
  USER_MEMO_ENTRIES: env.positiveInt(10_000),
  /** GraphQL introspection (`__schema`, `__type`); unset: on, except under NODE_ENV=production (loadContentConfig). */
  GRAPHQL_INTROSPECTION: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1')),
  NODE_ENV: z.string().optional(),
};

export type ContentConfig = ReturnType<typeof loadContentConfig>;
export function loadContentConfig(source: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(contentConfigShape, source);
  // The explicit setting wins; unset, a production deployment does not describe its schema to anyone who asks.
  return { ...config, GRAPHQL_INTROSPECTION: config.GRAPHQL_INTROSPECTION ?? config.NODE_ENV !== 'production' };
}
