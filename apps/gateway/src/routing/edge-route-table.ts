import type { EdgeRoute } from './edge-route';

/**
 * Paths of the authorization server that clients use (docs/auth.md "Paths the gateway forwards":
 * the OAuth 2.0 endpoints, discovery, JWKS and the pages a person sees; sub-paths such as
 * `/authorize/decision`). Everything else of auth, above all `/internal/*`, is unreachable here.
 */
const AUTH_PUBLIC_PREFIXES = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/userinfo',
  '/jwks',
  '/authorize',
  '/login',
  '/logout',
  '/device',
  '/token',
  '/revoke',
  '/introspect',
  '/device_authorization',
  // RFC 7591/7592: dynamic client registration and the client configuration endpoints under it.
  '/register',
  // RFC 9126: pushed authorization requests.
  '/par',
  // The administration API: auth authenticates every call itself (an admin-scoped access token).
  '/admin',
] as const;

const SPEECH_SCOPES = { read: 'speech:read', write: 'speech:write' } as const;

/** The speech API: every call needs a credential (docs/speech.md, "Authentication everywhere"). */
const speechApi = (at: string, local: 'speech' | 'speechV2'): EdgeRoute => ({
  mount: { at },
  upstream: { local, notFound: 'no such speech endpoint' },
  surface: 'speech',
  authentication: { credentials: 'required', resources: ['', '/v1'], scopes: SPEECH_SCOPES },
  planLimits: true,
  body: 'stream',
});

/**
 * The public routes, in the order they are tried (the queue dashboard at `/admin/queues` is mounted
 * ahead of them all, so auth's `/admin` never sees it). Every route that authenticates does so
 * before its limits: a JWT whose revocation is deferred is checked by the plan limiter.
 */
export const EDGE_ROUTES: readonly EdgeRoute[] = [
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
  },
  // GraphQL queries and mutations over HTTP (subscriptions are the WebSocket's, upgrades.ts):
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
  },
  // The authorization server's public endpoints, Host and X-Forwarded-* preserved for the issuer.
  // Auth authenticates its own callers (its sign-in and device-code limits count per address).
  {
    mount: { prefixes: AUTH_PUBLIC_PREFIXES },
    upstream: { service: 'auth' },
    surface: 'oauth',
    planLimits: false,
    body: 'stream',
  },
];
