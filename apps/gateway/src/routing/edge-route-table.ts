import type { CorsPolicy } from './cors';
import type { EdgeRoute, WebSocketRoute } from './edge-route';

/**
 * The authorization server's endpoints that client software calls (docs/auth.md "Paths the gateway
 * forwards"): the OAuth 2.0 endpoints, discovery and JWKS, which a browser app on another origin may
 * call (CORS). Everything else of auth, above all `/internal/*`, is unreachable here.
 */
const AUTH_ENDPOINT_PREFIXES = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/userinfo',
  '/jwks',
  '/token',
  '/revoke',
  '/introspect',
  '/device_authorization',
  // RFC 7591/7592: dynamic client registration and the client configuration endpoints under it.
  '/register',
  // RFC 9126: pushed authorization requests.
  '/par',
] as const;

/**
 * The authorization server's pages a person sees (sub-paths such as `/authorize/decision`) and its
 * administration API, which auth authenticates itself (an admin-scoped access token): same-origin only.
 */
const AUTH_PAGE_PREFIXES = ['/authorize', '/login', '/logout', '/device', '/admin'] as const;

/** Response headers a script on another origin needs from every API (limits and credential challenges). */
const EXPOSED_TO_SCRIPTS = [
  'Retry-After',
  'WWW-Authenticate',
  'DPoP-Nonce',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
] as const;

/** What a page on an allowed origin may send and read on the APIs that take credentials (routing/cors.ts). */
const API_CORS: CorsPolicy = {
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'DPoP', 'xi-api-key'],
  exposeHeaders: EXPOSED_TO_SCRIPTS,
};

/** The speech API adds what its answers carry: the history item and request ids, an attachment's name. */
const SPEECH_CORS: CorsPolicy = {
  ...API_CORS,
  exposeHeaders: [...EXPOSED_TO_SCRIPTS, 'history-item-id', 'request-id', 'Content-Disposition'],
};

/** The OAuth endpoints: forms and JSON by GET and POST, client and DPoP credentials in headers. */
const OAUTH_CORS: CorsPolicy = {
  methods: ['GET', 'POST', 'DELETE', 'PUT'],
  allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'DPoP'],
  exposeHeaders: EXPOSED_TO_SCRIPTS,
};

const SPEECH_SCOPES = { read: 'speech:read', write: 'speech:write' } as const;

/** The speech API: every call needs a credential (docs/speech.md, "Authentication everywhere"). */
const speechApi = (
  at: string,
  local: 'speech' | 'speechV2' | 'openaiSpeech',
  surface: 'speech' | 'openai' = 'speech',
): EdgeRoute<never> => ({
  mount: { at },
  upstream: { local, notFound: 'no such speech endpoint' },
  surface,
  authentication: { credentials: 'required', resources: ['', '/v1'], scopes: SPEECH_SCOPES },
  planLimits: true,
  body: 'stream',
  cors: SPEECH_CORS,
});

/**
 * The public routes, in the order they are tried (the queue dashboard at `/admin/queues` is mounted
 * ahead of them all, so auth's `/admin` never sees it). Every route that authenticates does so
 * before its limits: a JWT whose revocation is deferred is checked by the plan limiter.
 */
export const EDGE_ROUTES = [
  // OpenAI's speech API (`POST /v1/audio/speech`), ahead of `/v1`: its refusals in OpenAI's error shape.
  speechApi('/v1/audio', 'openaiSpeech', 'openai'),
  speechApi('/v1', 'speech'),
  // The hosted API's second version (its voice search), served the same way.
  speechApi('/v2', 'speechV2'),
  // Content REST: register/login/refresh are public; content itself refuses anonymous callers elsewhere.
  {
    mount: { at: '/api/v1' },
    upstream: { service: 'content' },
    surface: 'content',
    authentication: {
      credentials: 'optional',
      resources: ['', '/api'],
      scopes: { read: 'content:read', write: 'content:write' },
      revocation: 'deferred',
      publicPaths: ['/auth'],
    },
    planLimits: true,
    body: 'stream',
    cors: API_CORS,
  },
  // GraphQL queries and mutations over HTTP (subscriptions are the WebSocket's, WEBSOCKET_ROUTES):
  // the audience is checked here, the operation's scope once the body has been read, after the limits.
  {
    mount: { at: '/graphql' },
    upstream: { service: 'content' },
    surface: 'graphql',
    authentication: {
      credentials: 'optional',
      resources: ['', '/api'],
      scopes: 'per-operation',
      revocation: 'deferred',
    },
    planLimits: true,
    body: 'graphql',
    cors: API_CORS,
  },
  // The authorization server's public endpoints, Host and X-Forwarded-* preserved for the issuer.
  // Auth authenticates its own callers (its sign-in and device-code limits count per address).
  {
    mount: { prefixes: AUTH_ENDPOINT_PREFIXES },
    upstream: { service: 'auth' },
    surface: 'oauth',
    planLimits: false,
    body: 'stream',
    cors: OAUTH_CORS,
  },
  // Its pages and administration API, forwarded the same way, for same-origin callers only.
  {
    mount: { prefixes: AUTH_PAGE_PREFIXES },
    upstream: { service: 'auth' },
    surface: 'oauth',
    planLimits: false,
    body: 'stream',
  },
] as const satisfies readonly EdgeRoute[];

/**
 * The services the gateway forwards to: the ones the table names, each reached at its `<NAME>_URL`
 * (routing/routing-config.ts; `npm start` and the chart give every app an internal service's address under that name).
 */
export type UpstreamName = Extract<(typeof EDGE_ROUTES)[number]['upstream'], { service: string }>['service'];
export const UPSTREAM_NAMES: readonly UpstreamName[] = [
  ...new Set(EDGE_ROUTES.flatMap((route) => ('service' in route.upstream ? [route.upstream.service] : []))),
];

/**
 * The WebSocket mounts (routing/upgrades.ts): any other upgrade is answered 404. They are not tried
 * by the HTTP routes above: a `GET /graphql` without `Upgrade` is GraphQL over HTTP.
 */
export const WEBSOCKET_ROUTES: readonly WebSocketRoute[] = [
  // GraphQL subscriptions over graphql-ws, served by the gateway (src/subscriptions).
  { mount: { at: '/graphql' }, upstream: { local: 'graphql' }, surface: 'graphql' },
  // The speech API's stream-input (src/speech/stream-input), which takes only its own path below this.
  { mount: { under: '/v1/text-to-speech/' }, upstream: { local: 'speech' }, surface: 'speech' },
];
