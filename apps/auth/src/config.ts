import { env, loadConfig } from '@platform/config';
import { PLAN_NAMES } from '@platform/identity';
import { z } from 'zod';

/** A JSON array of trusted RFC 7523 assertion issuers: `[{"issuer": "...", "jwks": {"keys": [...]}, "scopes": "a b"}]`. */
const trustedIssuers = z
  .string()
  .default('[]')
  .transform((value, ctx) => {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be JSON' });
      return z.NEVER;
    }
  })
  .pipe(
    z.array(
      z.object({
        issuer: z.string().min(1),
        jwks: z.object({ keys: z.array(z.record(z.unknown())).min(1) }),
        scopes: z.string().default(''),
      }),
    ),
  );

export const authConfigShape = {
  PORT: env.port(8081),
  HOST: env.host,
  METRICS_PORT: env.metricsPort,
  LOG_LEVEL: env.logLevel,
  MONGO_URL: env.mongoUrl,
  MONGO_DB: z.string().min(1).default('auth'),
  REDIS_URL: env.redisUrl,
  INTERNAL_SECRET: env.internalSecret,
  /** The issuer as clients see it (through the gateway). */
  PUBLIC_URL: env.httpUrl.default('http://127.0.0.1:8080'),
  /** The playground's public client, registered (and kept in step with PUBLIC_URL) at boot; empty: none. */
  PLAYGROUND_CLIENT_ID: env.playgroundClientId,
  /** The queue dashboard's public client (admin scope), registered like the playground's; empty: none. */
  QUEUE_DASHBOARD_CLIENT_ID: env.queueDashboardClientId,
  /**
   * The plan of an account that signs itself up (content's `POST /api/v1/auth/register`, `/internal/accounts`
   * without a plan). `npm start`, the development launcher, sets `pro` so the README's tour runs within the
   * limits; a deployment keeps `free` and moves accounts with the admin CLI or API (docs/auth.md "Plans").
   */
  NEW_ACCOUNT_PLAN: z.enum(PLAN_NAMES).default('free'),
  /** The API reference's public client (`/docs`, Swagger UI), registered like the playground's; empty: none. */
  API_REFERENCE_CLIENT_ID: env.apiReferenceClientId,
  /**
   * Client registrations are cached per replica this long (seconds). Changes are announced to every
   * replica at once; this bounds only what a replica whose Redis subscription was down may still use.
   */
  CLIENT_CACHE_SECONDS: env.positiveInt(30),
  /** Access token lifetime (seconds); login tokens use it too (the content API's login answers `expires_in: 3600`). */
  ACCESS_TOKEN_TTL: env.positiveInt(3600),
  /** Refresh token lifetime (seconds); the content API's login answers `refresh_expires_in: 604800`. */
  REFRESH_TOKEN_TTL: env.positiveInt(604800),
  AUTHORIZATION_CODE_TTL: env.positiveInt(60),
  DEVICE_CODE_TTL: env.positiveInt(600),
  DEVICE_POLL_INTERVAL: env.positiveInt(5),
  /** Lifetime of a pushed authorization request's `request_uri` (RFC 9126 §2.2 `expires_in`, seconds). */
  PAR_TTL: env.positiveInt(60),
  /** When true, every client must push its authorization requests (RFC 9126 §5); per client: `require_pushed_authorization_requests`. */
  REQUIRE_PUSHED_AUTHORIZATION_REQUESTS: env.boolean(false),
  /** When true, every authorization request must be a signed request object (RFC 9101 §10.5); per client: `require_signed_request_object`. */
  REQUIRE_SIGNED_REQUEST_OBJECT: env.boolean(false),
  /**
   * A client's `jwks_uri` is fetched from a public address over https only. True (tests, development, a
   * cluster whose clients publish keys inside it) allows loopback and private addresses, and plain http to loopback.
   */
  CLIENT_JWKS_URI_ALLOW_PRIVATE: env.boolean(false),
  /** Bounds of one `jwks_uri` fetch: time (milliseconds) and body size (bytes). */
  CLIENT_JWKS_URI_TIMEOUT_MS: env.positiveInt(3000),
  CLIENT_JWKS_URI_MAX_BYTES: env.positiveInt(65536),
  /** How long a fetched client key set is used before it is fetched again (seconds); an unknown `kid` refetches sooner (at most every 30 s). */
  CLIENT_JWKS_URI_CACHE_SECONDS: env.positiveInt(300),
  /** Sign-in session lifetime for the HTML pages (seconds). */
  SESSION_TTL: env.positiveInt(3600),
  /** Accepted age of a DPoP proof's `iat` (seconds, either side of now). */
  DPOP_IAT_WINDOW: env.positiveInt(60),
  /** When true, /token demands a server nonce in DPoP proofs (RFC 9449 §8). */
  DPOP_REQUIRE_NONCE: env.boolean(false),
  /** A signing key older than this is rotated at boot/refresh; the previous key stays in the JWKS. */
  KEY_ROTATION_SECONDS: env.positiveInt(30 * 24 * 3600),
  /** How long each replica caches the signing key set before rereading MongoDB (seconds). */
  KEY_CACHE_SECONDS: env.positiveInt(30),
  /**
   * A rotated-in key is served in /jwks this long before it signs (seconds). Must exceed
   * KEY_CACHE_SECONDS + the resource servers' JWKS refetch cooldown (30 s).
   */
  KEY_ACTIVATION_DELAY: env.positiveInt(70),
  /** Failed user-code entries allowed per client address per 15 minutes. */
  USER_CODE_MAX_ATTEMPTS: env.positiveInt(10),
  /** Password attempts per account identifier before each further one locks it (1 s, doubling). */
  LOGIN_ACCOUNT_MAX_FAILURES: env.positiveInt(5),
  /** Password attempts per client address before each further one locks it (1 s, doubling). */
  LOGIN_ADDRESS_MAX_FAILURES: env.positiveInt(50),
  /** The first sign-in lock (seconds); each further attempt while over budget doubles it. */
  LOGIN_FIRST_LOCK_SECONDS: env.positiveInt(1),
  /** The longest sign-in lock (seconds). */
  LOGIN_MAX_LOCK_SECONDS: env.positiveInt(900),
  /** Sign-in failures are forgotten this long after the last one (seconds). */
  LOGIN_FAILURE_WINDOW: env.positiveInt(86400),
  /** Password hashes (scrypt, ~50 ms and 32 MiB each) running at once in this replica (crypto/hash-slots.ts). */
  PASSWORD_HASH_CONCURRENCY: env.positiveInt(2),
  /** Password hashes waiting for a slot; beyond, 503 `temporarily_unavailable` at once. */
  PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(32),
  /**
   * Back-channel logout (OpenID Connect Back-Channel Logout 1.0): when true, logout tokens may be sent to
   * loopback and private addresses and clients may register `http://` loopback `backchannel_logout_uri`s
   * (development and tests; a deployment whose RPs sit on a private network). Off: https only, public addresses.
   */
  BACKCHANNEL_LOGOUT_ALLOW_PRIVATE: env.boolean(false),
  /** One back-channel logout POST may take this long (ms) before it counts as failed and is retried. */
  BACKCHANNEL_LOGOUT_TIMEOUT_MS: env.positiveInt(5000),
  /** Attempts per logout token before it is given up (kept as `failed` for a week). */
  BACKCHANNEL_LOGOUT_MAX_ATTEMPTS: env.positiveInt(10),
  /** The wait before the first retry (seconds); each further one doubles it, up to 300 s. */
  BACKCHANNEL_LOGOUT_RETRY_SECONDS: env.positiveInt(1),
  JWT_BEARER_TRUSTED_ISSUERS: trustedIssuers,
  /**
   * Dynamic client registration (RFC 7591) without an initial access token. Off: `POST /register` needs
   * one, minted by an administrator (docs/auth.md "Dynamic client registration").
   */
  REGISTRATION_OPEN: env.boolean(false),
  /** Requests to `/register` and the client configuration endpoints per client address per minute. */
  REGISTRATION_RATE_LIMIT: env.positiveInt(20),
  /**
   * Comma-separated client ids of resource servers allowed to introspect tokens issued to other clients,
   * when the token's audience is one of the resource server's registered resources (RFC 7662 §4).
   */
  INTROSPECTION_RESOURCE_SERVERS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    ),
};

export type AuthConfig = ReturnType<typeof loadAuthConfig>;
export function loadAuthConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(authConfigShape, source);
}
