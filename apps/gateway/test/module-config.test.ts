import { queueDashboardConfigShape } from '../src/admin/queue-dashboard-config';
import { authenticationConfigShape } from '../src/auth/authentication-config';
import { gatewayConfigShape, loadGatewayConfig } from '../src/config';
import { limitsConfigShape } from '../src/limits/limits-config';
import { pagesConfigShape } from '../src/playground/pages-config';
import { routingConfigShape } from '../src/routing/routing-config';
import { speechConfigShape } from '../src/speech/speech-config';
import { subscriptionsConfigShape } from '../src/subscriptions/subscriptions-config';

/**
 * Each gateway module declares its settings in its own folder (docs/architecture.md, "The gateway's
 * modules"); the gateway's configuration is the process's own settings and the modules' shapes, spread.
 */
const MODULE_SHAPES: Record<string, Record<string, unknown>> = {
  routing: routingConfigShape,
  authentication: authenticationConfigShape,
  limits: limitsConfigShape,
  subscriptions: subscriptionsConfigShape,
  pages: pagesConfigShape,
  queueDashboard: queueDashboardConfigShape,
  speech: speechConfigShape,
};

/** The process's own settings: the address, telemetry, the stores and what every module shares. */
const PROCESS_SETTINGS = [
  'PORT',
  'HOST',
  'METRICS_PORT',
  'LOG_LEVEL',
  'REDIS_URL',
  'KAFKA_BROKERS',
  'INTERNAL_SECRET',
  'PUBLIC_URL',
];

const ENV = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  KAFKA_BROKERS: '127.0.0.1:9092',
  INTERNAL_SECRET: 'module-config-test-secret-0123456789abcdef',
};

describe('the gateway modules’ settings', () => {
  it('are in the gateway’s configuration with their module’s schema', () => {
    for (const [module, shape] of Object.entries(MODULE_SHAPES))
      for (const [name, schema] of Object.entries(shape))
        expect({ module, name, schema: (gatewayConfigShape as Record<string, unknown>)[name] }).toEqual({
          module,
          name,
          schema,
        });
  });

  it('each have one owner, and with the process’s own make the whole configuration', () => {
    // A variable in two shapes would be silently taken from the later spread.
    const names = [...PROCESS_SETTINGS, ...Object.values(MODULE_SHAPES).flatMap((shape) => Object.keys(shape))];
    expect(names.length).toBe(new Set(names).size);
    expect([...names].sort()).toEqual(Object.keys(gatewayConfigShape).sort());
    expect(names).toHaveLength(63);
  });

  // The defaults as they were before the shapes moved to their modules (docs/configuration.md).
  it('keep their defaults', () => {
    const config = loadGatewayConfig(ENV);
    expect(config).toMatchObject({
      PORT: 8080,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      PUBLIC_URL: 'http://127.0.0.1:8080',
      AUTH_URL: 'http://127.0.0.1:8081',
      CONTENT_URL: 'http://127.0.0.1:8082',
      UPSTREAM_TIMEOUT_MS: 10_000,
      UPSTREAM_CONNECT_TIMEOUT_MS: 2_000,
      MAX_BODY_BYTES: 10_485_760,
      MAX_GRAPHQL_BODY_BYTES: 102_400,
      SHUTDOWN_GRACE_MS: 25_000,
      CORS_ALLOWED_ORIGINS: [],
      API_KEY_CACHE_TTL_MS: 30_000,
      API_KEY_UNKNOWN_CACHE_MS: 5_000,
      WS_REVOCATION_SWEEP_MS: 5_000,
      TRUSTED_PROXIES: '',
      RATE_LIMIT_PREFIX: 'gw:limits',
      ENTERPRISE_RPS: 50,
      ENTERPRISE_CONCURRENCY: 25,
      PLAN_LIMITS_JSON: '',
      KAFKA_TOPIC_PREFIX: '',
      SUBSCRIBER_BUFFER: 256,
      MAX_SUBSCRIPTIONS_PER_CONNECTION: 50,
      SUBSCRIPTION_MAX_COST: 500,
      SUBSCRIPTION_CONNECTION_MAX_COST: 2_000,
      SUBSCRIPTION_CONNECTION_MAX_FETCHES: 20,
      SUBSCRIPTION_ADDRESS_MAX_FETCHES: 40,
      SUBSCRIPTION_ACCOUNT_MAX_FETCHES: 40,
      GRAPHQL_WS_CONNECTIONS_PER_ADDRESS: 10,
      GRAPHQL_WS_CONNECTIONS_PER_ACCOUNT: 20,
      SUBSCRIPTIONS_PER_ADDRESS: 100,
      SUBSCRIPTIONS_PER_ACCOUNT: 200,
      GRAPHQL_WS_MESSAGES_PER_SECOND: 20,
      GRAPHQL_WS_MESSAGE_BURST: 100,
      SUBSCRIPTION_FETCH_TIMEOUT_MS: 3_000,
      PLAYGROUND_CLIENT_ID: 'playground',
      PLAYGROUND_DIR: '',
      QUEUE_DASHBOARD_CLIENT_ID: 'queue-dashboard',
      API_REFERENCE_CLIENT_ID: 'api-reference',
    });
    expect(config.METRICS_PORT).toBeUndefined();
    expect(config.TRUST_PROXY).toBeUndefined();
  });

  it('are checked as before', () => {
    expect(() => loadGatewayConfig({ ...ENV, API_KEY_UNKNOWN_CACHE_MS: '60001' })).toThrow(/API_KEY_UNKNOWN_CACHE_MS/);
    expect(() => loadGatewayConfig({ ...ENV, RATE_LIMIT_PREFIX: '' })).toThrow(/RATE_LIMIT_PREFIX/);
    expect(() => loadGatewayConfig({ ...ENV, SUBSCRIBER_BUFFER: '0' })).toThrow(/SUBSCRIBER_BUFFER/);
    expect(() => loadGatewayConfig({ ...ENV, CONTENT_URL: 'ftp://content' })).toThrow(/CONTENT_URL/);
  });
});
