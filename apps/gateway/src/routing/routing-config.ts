import { env } from '@platform/config';
import { z } from 'zod';

/**
 * The routing's settings (docs/gateway.md, docs/configuration.md): the upstreams the edge-route table
 * forwards to (`<NAME>_URL`, as `npm start` and the chart name them), the bounds of a forwarded request
 * and of the shutdown drain, each default written here once: the gateway's configuration takes them
 * into its own (config.ts).
 */
export const routingConfigShape = {
  AUTH_URL: env.httpUrl.default('http://127.0.0.1:8081'),
  CONTENT_URL: env.httpUrl.default('http://127.0.0.1:8082'),
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
  /**
   * On SIGTERM, how long work in flight (HTTP responses, `/stream` included, and WebSocket sessions)
   * may go on while new requests are refused 503; then WebSockets are closed 1012 and the responses
   * still running are cut (docs/gateway.md, "Shutdown"). The pod's termination grace period must
   * exceed it (deploy/helm/platform).
   */
  SHUTDOWN_GRACE_MS: env.positiveInt(25_000),
  /**
   * Origins (`scheme://host[:port]`, comma-separated, matched exactly) whose browser pages may call
   * the public APIs across origins (routing/cors.ts, docs/security.md "CORS"). Empty, the default:
   * none, a deployment names its own front ends. `npm start`, the development launcher, sets the
   * playground's origin.
   */
  CORS_ALLOWED_ORIGINS: env.origins,
};

/** The routing's settings as parsed. */
export type RoutingConfig = z.output<z.ZodObject<typeof routingConfigShape>>;
