import { env, loadConfig } from '@platform/config';
import { queueDashboardConfigShape } from './admin/queue-dashboard-config';
import { authenticationConfigShape } from './auth/authentication-config';
import { limitsConfigShape } from './limits/limits-config';
import { pagesConfigShape } from './playground/pages-config';
import { routingConfigShape } from './routing/routing-config';
import { speechConfigShape } from './speech/speech-config';
import { subscriptionsConfigShape } from './subscriptions/subscriptions-config';

/**
 * The gateway's configuration: the process's own settings, then each module's, declared in its
 * folder with its defaults (docs/architecture.md, "The gateway's modules").
 */
export const gatewayConfigShape = {
  PORT: env.port(8080),
  HOST: env.host,
  METRICS_PORT: env.metricsPort,
  LOG_LEVEL: env.logLevel,
  REDIS_URL: env.redisUrl,
  KAFKA_BROKERS: env.kafkaBrokers,
  INTERNAL_SECRET: env.internalSecret,
  PUBLIC_URL: env.httpUrl.default('http://127.0.0.1:8080'),
  /** The upstreams, a forwarded request's bounds and the shutdown's grace (routing/routing-config.ts). */
  ...routingConfigShape,
  /** API keys and access tokens (auth/authentication-config.ts). */
  ...authenticationConfigShape,
  /** Plan limits and the client address (limits/limits-config.ts). */
  ...limitsConfigShape,
  /** GraphQL subscriptions over graphql-ws (subscriptions/subscriptions-config.ts). */
  ...subscriptionsConfigShape,
  /** The playground and the reference pages (playground/pages-config.ts). */
  ...pagesConfigShape,
  /** The queue dashboard (admin/queue-dashboard-config.ts). */
  ...queueDashboardConfigShape,
  /** The speech edge's settings, declared with it (apps/gateway/src/speech/speech-config.ts, docs/speech.md). */
  ...speechConfigShape,
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
export function loadGatewayConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(gatewayConfigShape, source);
}
