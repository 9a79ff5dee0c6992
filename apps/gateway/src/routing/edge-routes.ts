import type { Express, Router } from 'express';
import { DASHBOARD_PATH } from '../admin/queue-dashboard';
import { EDGE_ROUTES, type UpstreamName } from './edge-route-table';
import { mountEdgeRoute, type EdgeRouteContext } from './mount-edge-route';
import { refuseNonCanonicalPaths } from './path-guard';
import { createIdentitySigner } from './identity-signer';

/** What the table's routes share (mount-edge-route.ts), and what the gateway mounts around them. */
interface EdgeRouteDeps extends Omit<EdgeRouteContext<UpstreamName>, 'signIdentity' | 'local'> {
  internalSecret: string;
  /** The speech API's routers (apps/gateway/src/speech), in order; mounted behind authentication and limits. */
  speech: Router[];
  /** The speech API's `/v2` routers (the hosted API's voice search), mounted the same way at `/v2`. */
  speechV2?: Router[];
  /** OpenAI's speech API (`/v1/audio`), mounted the same way, ahead of `/v1`. */
  openaiSpeech?: Router[];
  /** The queue dashboard for administrators (src/admin), at `/admin/queues`, ahead of auth's `/admin/*`. */
  dashboard?: Router | null;
  /** Pages for people (the playground), served where no API path matched. */
  pages?: Router | null;
  /**
   * The published interface documents and their reference pages (`/openapi/*`, `/asyncapi.json`,
   * `/docs`, the GraphQL explorer a browser gets at `/graphql`): mounted before the APIs, public.
   */
  reference?: Router | null;
}

/**
 * The gateway's HTTP surface, in order: non-canonical paths refused, the public reference, the
 * queue dashboard, every route of `EDGE_ROUTES` (edge-route-table.ts), the playground's pages, 404.
 */
export function mountEdgeRoutes(app: Express, deps: EdgeRouteDeps): void {
  app.use(refuseNonCanonicalPaths);
  const reference = deps.reference;
  // The reference is read-only, and an express router answers OPTIONS on its own GET paths (`Allow`):
  // an OPTIONS goes on to the routes, whose CORS answers a preflight (`/graphql` is both).
  if (reference) app.use((req, res, next) => (req.method === 'OPTIONS' ? next() : reference(req, res, next)));
  // Ahead of the table: auth's `/admin` prefix must not take the dashboard's requests.
  if (deps.dashboard) app.use(DASHBOARD_PATH, deps.dashboard);

  const context: EdgeRouteContext<UpstreamName> = {
    publicUrl: deps.publicUrl,
    corsAllowedOrigins: deps.corsAllowedOrigins,
    maxBodyBytes: deps.maxBodyBytes,
    maxGraphqlBodyBytes: deps.maxGraphqlBodyBytes,
    logger: deps.logger,
    authDeps: deps.authDeps,
    limiter: deps.limiter,
    failedCredentials: deps.failedCredentials,
    signIdentity: createIdentitySigner(deps.internalSecret),
    upstreams: deps.upstreams,
    local: {
      speech: deps.speech,
      ...(deps.speechV2 ? { speechV2: deps.speechV2 } : {}),
      ...(deps.openaiSpeech ? { openaiSpeech: deps.openaiSpeech } : {}),
    },
  };
  for (const route of EDGE_ROUTES) mountEdgeRoute(app, route, context);

  if (deps.pages) app.use(deps.pages);

  app.use((_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });
}
