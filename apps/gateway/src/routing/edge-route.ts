import type { CorsPolicy } from './cors';
import type { Surface } from './edge-errors';

/** Routers the gateway serves itself (the speech API), by the name they are handed in under. */
export type LocalRoutersName = 'speech' | 'speechV2' | 'openaiSpeech';

/** WebSocket servers of the gateway's own (routing/upgrades.ts), by the name they are handed in under. */
export type WebSocketServerName = 'graphql' | 'speech';

/**
 * One public route of the edge, declared: where it is mounted, who answers, the interface's error
 * shape and what a request needs before it gets there. `mountEdgeRoute` (mount-edge-route.ts)
 * turns it into middleware; the table is `EDGE_ROUTES` (edge-route-table.ts). `Service` is the
 * upstream's name: the services the gateway forwards to are the ones its table names (`UpstreamName`).
 */
export interface EdgeRoute<Service extends string = string> {
  /**
   * `at`: one express mount path; the route's code sees paths below it (express matches mount paths
   * without regard to case). `prefixes`: paths matched exactly as written, each with everything
   * under it (`/token`, `/token/x`), the request's metric labelled with the prefix it matched.
   */
  mount: { at: string } | { prefixes: readonly string[] };
  /**
   * Who answers: a service, to which the request is forwarded with a signed caller identity
   * (`libs/identity`) carrying the client address the gateway resolved (TRUSTED_PROXIES), so the
   * service limits by it instead of by an X-Forwarded-For it would have to trust; or routers of the
   * gateway's own (`local`), which end with a 404 in the route's shape. A local route whose
   * routers are not handed in is not mounted.
   */
  upstream: { service: Service } | { local: LocalRoutersName; notFound: string };
  /** The interface's error shape for every refusal the gateway makes on this route (edge-errors.ts). */
  surface: Surface;
  /**
   * Authentication at the edge; absent, the service authenticates its own callers and the identity
   * it gets only vouches for the client address. When present, credential headers stay at the edge.
   */
  authentication?: {
    /** `required`: anonymous callers are refused here; `optional`: they go on, and the service decides. */
    credentials: 'required' | 'optional';
    /** Resource identifiers (RFC 8707) accepted as audience, as paths under PUBLIC_URL (`''` is PUBLIC_URL itself). */
    resources: readonly string[];
    /**
     * Scope by method: GET, HEAD and OPTIONS need `read`, others `write`. `per-operation`: none
     * here; the GraphQL body step checks the operation's scope once it has read it (graphql-request.ts).
     */
    scopes: { read: string; write: string } | 'per-operation';
    /** `deferred`: a JWT's revocation is checked by the plan limiter, in its Redis round trip (limits/admission.ts). */
    revocation?: 'deferred';
    /** Sub-paths (below the mount) that take everyone as anonymous, credentials unread. */
    publicPaths?: readonly string[];
  };
  /** The caller's plan limits (rate and concurrency) apply, after authentication. */
  planLimits: boolean;
  /**
   * `stream`: the body streams to the service, bounded by MAX_BODY_BYTES. `graphql`: GraphQL over
   * HTTP; the body is read (MAX_GRAPHQL_BODY_BYTES) and checked after the limits, then sent as read.
   */
  body: 'stream' | 'graphql';
  /**
   * What pages on the origins of CORS_ALLOWED_ORIGINS may call here (routing/cors.ts): preflights
   * are answered before authentication. Absent: no CORS headers, a browser on another origin cannot
   * read the answers (the pages a person sees, the administration API).
   */
  cors?: CorsPolicy;
}

/**
 * One WebSocket mount of the edge: the upgrade's path, the gateway's own server that takes it
 * (WebSockets authenticate inside their protocols, so no `authentication` here) and the interface's
 * error shape. Routed by `routeUpgrades` (upgrades.ts); the table is `WEBSOCKET_ROUTES`.
 */
export interface WebSocketRoute {
  /** `at`: that path exactly (as written); `under`: every path that starts with it (its server may still decline: 404). */
  mount: { at: string } | { under: string };
  upstream: { local: WebSocketServerName };
  surface: Surface;
}

/** The paths a mount names, HTTP or WebSocket: its `at`, its `prefixes` or its `under`. */
export function mountPaths(route: EdgeRoute | WebSocketRoute): readonly string[] {
  const mount = route.mount;
  if ('at' in mount) return [mount.at];
  return 'prefixes' in mount ? mount.prefixes : [mount.under];
}
