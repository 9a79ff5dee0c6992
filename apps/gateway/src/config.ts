import { env, loadConfig } from '@platform/config';

export const gatewayConfigShape = {
  PORT: env.port(8080),
  HOST: env.host,
  LOG_LEVEL: env.logLevel,
  REDIS_URL: env.redisUrl,
  KAFKA_BROKERS: env.kafkaBrokers,
  INTERNAL_SECRET: env.internalSecret,
  PUBLIC_URL: env.httpUrl.default('http://127.0.0.1:8080'),
  AUTH_URL: env.httpUrl.default('http://127.0.0.1:8081'),
  CONTENT_URL: env.httpUrl.default('http://127.0.0.1:8082'),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
export function loadGatewayConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(gatewayConfigShape, source);
}
