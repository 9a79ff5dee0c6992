import express, { type Express, type Request, type Response, type Router } from 'express';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import { labelRoute } from '@platform/metrics';
import {
  authenticateRequests,
  credentialRefusal,
  publicRequestUrl,
  type NeedsFor,
} from '../auth/authenticate-middleware';
import { ANONYMOUS, type AuthenticateDeps } from '../auth/authenticate';
import { clientAddress } from '../limits/client-address';
import type { FailedCredentialBudget } from '../limits/failed-credentials';
import { limitRequests, type PlanLimiter } from '../limits/limit-middleware';
import { corsRequests } from './cors';
import type { EdgeRoute, LocalRoutersName } from './edge-route';
import { sendEdgeError } from './edge-errors';
import { forward } from './forward';
import { graphqlRequests } from './graphql-request';
import type { Upstream } from './upstream';

/** What mounting a route draws on: the same for every route; `upstreams` has a pool for every service the routes name. */
export interface EdgeRouteContext<Service extends string = string> {
  publicUrl: string;
  /** The origins whose pages may call the routes that declare `cors` (CORS_ALLOWED_ORIGINS). */
  corsAllowedOrigins: ReadonlySet<string>;
  maxBodyBytes: number;
  maxGraphqlBodyBytes: number;
  logger: Logger;
  authDeps: AuthenticateDeps;
  limiter: PlanLimiter;
  /** The client IP's budget that requests refused for their credentials are charged to. */
  failedCredentials: FailedCredentialBudget;
  /** Signs the caller identity a service trusts (`x-platform-identity`, libs/identity). */
  signIdentity: (identity: Identity) => Promise<string>;
  upstreams: Record<Service, Upstream>;
  local: Partial<Record<LocalRoutersName, Router[]>>;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Credential headers stay at the edge: services trust `x-platform-identity` only. */
const CREDENTIAL_HEADERS = ['authorization', 'xi-api-key', 'dpop'];

function underPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** The route's `authentication` as what each request asks of its caller (auth/authenticate.ts). */
function needsOf(auth: NonNullable<EdgeRoute['authentication']>, publicUrl: string): NeedsFor {
  const base = publicUrl.replace(/\/$/, '');
  const audiences = auth.resources.map((resource) => `${base}${resource}`);
  const publicPaths = auth.publicPaths ?? [];
  return (req) => {
    if (publicPaths.some((path) => underPrefix(req.path, path))) return 'skip';
    const scopes = auth.scopes;
    return {
      audiences,
      scope: scopes === 'per-operation' ? '' : READ_METHODS.has(req.method) ? scopes.read : scopes.write,
      credentialsRequired: auth.credentials === 'required',
      method: req.method,
      url: publicRequestUrl(publicUrl, req),
      ...(auth.revocation ? { revocation: auth.revocation } : {}),
    };
  };
}

/** Forwards to the route's service, signing the caller (or, unauthenticated, only the client address). */
function forwarder(route: EdgeRoute, upstream: Upstream, ctx: EdgeRouteContext) {
  const drop = route.authentication ? CREDENTIAL_HEADERS : undefined;
  return (req: Request, res: Response): void => {
    const caller = route.authentication ? req.identity! : ANONYMOUS;
    // A GraphQL POST's body was consumed at the edge (graphql-request.ts): what was read is sent, even empty.
    const body =
      route.body === 'graphql' && req.method === 'POST'
        ? Buffer.isBuffer(req.body)
          ? req.body
          : Buffer.alloc(0)
        : undefined;
    const work = ctx.signIdentity({ ...caller, clientAddress: clientAddress(req) }).then((identity) =>
      forward(req, res, upstream, req.originalUrl, {
        ...(drop ? { drop } : {}),
        set: { 'x-platform-identity': identity },
        ...(body ? { body } : {}),
        maxBodyBytes: ctx.maxBodyBytes,
        onFailure: (err) => sendEdgeError(res, route.surface, err),
      }),
    );
    // A proxied request must never become an unhandled rejection (it would end the process).
    void work.catch((err: unknown) => {
      ctx.logger.error({ err }, 'forwarding failed unexpectedly');
      res.destroy();
    });
  };
}

/** The route's steps in order: CORS, authenticate, limit, read the body if it is GraphQL, answer. */
function routeRouter<Service extends string>(route: EdgeRoute<Service>, ctx: EdgeRouteContext<Service>): Router | null {
  const { logger } = ctx;
  const router = express.Router();
  // A preflight carries no credentials: it is answered before authentication and the limits.
  if (route.cors) router.use(corsRequests(route.cors, ctx.corsAllowedOrigins, route.surface));
  if (route.authentication) {
    router.use(
      authenticateRequests(
        route.surface,
        needsOf(route.authentication, ctx.publicUrl),
        ctx.authDeps,
        ctx.failedCredentials,
        logger,
      ),
    );
  }
  if (route.planLimits) {
    router.use(
      limitRequests(
        ctx.limiter,
        route.surface,
        logger,
        credentialRefusal(route.surface, ctx.failedCredentials, logger),
      ),
    );
  }
  if (route.body === 'graphql') router.use(graphqlRequests(ctx.maxGraphqlBodyBytes));
  const upstream = route.upstream;
  if ('service' in upstream) {
    router.use(forwarder(route, ctx.upstreams[upstream.service], ctx));
    return router;
  }
  const routers = ctx.local[upstream.local];
  if (!routers) return null;
  for (const local of routers) router.use(local);
  router.use((_req, res) =>
    sendEdgeError(res, route.surface, { status: 404, code: 'not_found', message: upstream.notFound }),
  );
  return router;
}

/** Mounts one route of the table (edge-route-table.ts) on the app. */
export function mountEdgeRoute<Service extends string>(
  app: Express,
  route: EdgeRoute<Service>,
  ctx: EdgeRouteContext<Service>,
): void {
  const router = routeRouter(route, ctx);
  if (!router) return;
  const mount = route.mount;
  if ('at' in mount) {
    app.use(mount.at, router);
    return;
  }
  app.use((req, res, next) => {
    const prefix = mount.prefixes.find((p) => underPrefix(req.path, p));
    if (!prefix) {
      next();
      return;
    }
    labelRoute(res, prefix);
    router(req, res, next);
  });
}
