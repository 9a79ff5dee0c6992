import { env, loadConfig } from '@platform/config';
import { z } from 'zod';
import { trustedProxiesProblem } from './limits/trusted-proxies';
import { speechConfigShape } from './speech/speech-config';

const optionalString = z.string().default('');

export const gatewayConfigShape = {
  PORT: env.port(8080),
  HOST: env.host,
  METRICS_PORT: env.metricsPort,
  LOG_LEVEL: env.logLevel,
  REDIS_URL: env.redisUrl,
  KAFKA_BROKERS: env.kafkaBrokers,
  INTERNAL_SECRET: env.internalSecret,
  PUBLIC_URL: env.httpUrl.default('http://127.0.0.1:8080'),
  AUTH_URL: env.httpUrl.default('http://127.0.0.1:8081'),
  CONTENT_URL: env.httpUrl.default('http://127.0.0.1:8082'),
  /** The playground page at `/` signs in as this OAuth client (auth registers it); empty: no playground. */
  PLAYGROUND_CLIENT_ID: env.playgroundClientId,
  /** The client the queue dashboard signs administrators in as (auth registers it); empty: header tokens only. */
  QUEUE_DASHBOARD_CLIENT_ID: env.queueDashboardClientId,
  /** Where the playground's built assets are (`npm run build` writes apps/playground/dist); empty: that folder. */
  PLAYGROUND_DIR: optionalString,
  /**
   * The hops whose X-Forwarded-For is believed (the load balancer's addresses): a comma-separated list
   * of addresses, CIDR ranges or loopback/linklocal/uniquelocal. Empty (default): none; the client is
   * the socket's peer.
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .superRefine((value, ctx) => {
      const problem = trustedProxiesProblem(value);
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
    }),
  /** Renamed TRUSTED_PROXIES (whose default trusts no one): refused, so a deployment that set it notices. */
  TRUST_PROXY: z
    .undefined({ message: 'renamed TRUSTED_PROXIES (a list of proxy addresses/CIDRs; default: none)' })
    .optional(),
  /** Upstream must answer with headers within this many ms, else 504. */
  UPSTREAM_TIMEOUT_MS: env.positiveInt(10_000),
  /** TCP connect bound for upstreams; a dead host answers 503 this fast. */
  UPSTREAM_CONNECT_TIMEOUT_MS: env.positiveInt(2_000),
  /** Largest request body the gateway forwards (bytes). */
  MAX_BODY_BYTES: env.positiveInt(10 * 1024 * 1024),
  /**
   * Largest GraphQL-over-HTTP body, which the gateway reads (after authentication and the limits) to
   * find the operation's kind. The default is content's own bound (100 KiB): a larger body could only
   * be refused there, after the gateway had read it.
   */
  MAX_GRAPHQL_BODY_BYTES: env.positiveInt(100 * 1024),
  /** How long a resolved API key is trusted without asking auth again (revocation clears it at once). */
  API_KEY_CACHE_TTL_MS: env.positiveInt(30_000),
  /**
   * How long a key auth does not know is refused without asking auth again (0: never cached).
   * Short on purpose: it only delays a disabled account's keys working again (docs/gateway.md).
   */
  API_KEY_UNKNOWN_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  /** Redis key prefix of the shared rate-limit state (tests use a unique one). */
  RATE_LIMIT_PREFIX: z.string().min(1).max(100).default('gw:limits'),
  /** Enterprise plan limits ("custom" in the speech API's plan table). */
  ENTERPRISE_RPS: env.positiveInt(50),
  ENTERPRISE_CONCURRENCY: env.positiveInt(25),
  /** Optional JSON `{"<plan>": {"rps": n, "concurrency": n}}` overriding the built-in table. */
  PLAN_LIMITS_JSON: optionalString,
  /** Prefix of the content topics (libs/events); lets test runs share one Kafka. */
  KAFKA_TOPIC_PREFIX: optionalString,
  /** Events a subscriber may have queued before its connection is closed (room for a Kafka fetch's burst). */
  SUBSCRIBER_BUFFER: env.positiveInt(256),
  /** Active subscriptions per graphql-ws connection. */
  MAX_SUBSCRIPTIONS_PER_CONNECTION: env.positiveInt(50),
  /** Cost of one subscription per event, in libs/graphql-schema's cost model (docs/gateway.md). */
  SUBSCRIPTION_MAX_COST: env.positiveInt(500),
  /** Cost of all of one graphql-ws connection's active subscriptions together, per event. */
  SUBSCRIPTION_CONNECTION_MAX_COST: env.positiveInt(2_000),
  /** Nested fetches from content one event may cause for one connection's subscriptions. */
  SUBSCRIPTION_CONNECTION_MAX_FETCHES: env.positiveInt(20),
  /**
   * Nested fetches one event may cause for all of one client address's anonymous connections, or
   * one account's connections, together on a replica (docs/security.md "WebSocket limits").
   */
  SUBSCRIPTION_ADDRESS_MAX_FETCHES: env.positiveInt(40),
  SUBSCRIPTION_ACCOUNT_MAX_FETCHES: env.positiveInt(40),
  /**
   * graphql-ws connections per client address (anonymous, and every socket until its
   * `connection_init` is accepted) and per account, across replicas; beyond them, close 4429.
   */
  GRAPHQL_WS_CONNECTIONS_PER_ADDRESS: env.positiveInt(10),
  GRAPHQL_WS_CONNECTIONS_PER_ACCOUNT: env.positiveInt(20),
  /** Active subscriptions over all of a client address's anonymous connections, or an account's, across replicas. */
  SUBSCRIPTIONS_PER_ADDRESS: env.positiveInt(100),
  SUBSCRIPTIONS_PER_ACCOUNT: env.positiveInt(200),
  /** Messages a graphql-ws socket may send per second, and at once (token bucket); beyond them, close 4429. */
  GRAPHQL_WS_MESSAGES_PER_SECOND: env.positiveInt(20),
  GRAPHQL_WS_MESSAGE_BURST: env.positiveInt(100),
  /**
   * Every this many ms, the tokens of open graphql-ws connections are checked against auth's
   * revocations in Redis: the bound when a revocation notice on `auth:revocations` was missed.
   */
  WS_REVOCATION_SWEEP_MS: env.positiveInt(5_000),
  /**
   * On SIGTERM, how long work in flight (HTTP responses, `/stream` included, and WebSocket sessions)
   * may go on while new requests are refused 503; then WebSockets are closed 1012 and the responses
   * still running are cut (docs/gateway.md, "Shutdown"). The pod's termination grace period must
   * exceed it (deploy/helm/platform).
   */
  SHUTDOWN_GRACE_MS: env.positiveInt(25_000),
  /** Bound for the nested-field fetch a subscription event may need from content. */
  SUBSCRIPTION_FETCH_TIMEOUT_MS: env.positiveInt(3_000),
  /** The speech edge's settings, declared with it (apps/gateway/src/speech/speech-config.ts, docs/speech.md). */
  ...speechConfigShape,
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
export function loadGatewayConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(gatewayConfigShape, source);
}
