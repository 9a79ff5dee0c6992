import express, { type Express, type Request, type Response, type Router } from 'express';
import type { Logger } from '@platform/logger';
import { labelRoute } from '@platform/metrics';
import { authenticateRequests, credentialRefusal, publicRequestUrl } from '../auth/authenticate-middleware';
import type { AuthenticateDeps, RouteNeeds } from '../auth/authenticate';
import { clientAddress } from '../limits/client-address';
import type { FailedCredentialBudget } from '../limits/failed-credentials';
import { limitRequests, type PlanLimiter } from '../limits/limit-middleware';
import { DASHBOARD_PATH } from '../admin/queue-dashboard';
import { sendEdgeError } from './edge-errors';
import { forward } from './forward';
import { refuseNonCanonicalPaths } from './path-guard';
import { graphqlRequests } from './graphql-request';
import { createIdentitySigner } from './identity-signer';
import type { Upstream } from './upstream';

export interface EdgeRouteDeps {
  publicUrl: string;
  internalSecret: string;
  maxBodyBytes: number;
  maxGraphqlBodyBytes: number;
  logger: Logger;
  authDeps: AuthenticateDeps;
  limiter: PlanLimiter;
  /** The client IP's budget that requests refused for their credentials are charged to. */
  failedCredentials: FailedCredentialBudget;
  content: Upstream;
  auth: Upstream;
  /** The speech API's routers (apps/gateway/src/speech), in order; mounted behind authentication and limits. */
  speech?: Router[];
  /** The speech API's `/v2` routers (the hosted API's voice search), mounted the same way at `/v2`. */
  speechV2?: Router[];
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
 * Paths of the authorization server that clients use (docs/auth.md "Paths the gateway forwards":
 * the OAuth 2.0 endpoints, discovery, JWKS and the pages a person sees; sub-paths such as `/authorize/decision`). Everything else of auth, above all `/internal/*`, is unreachable here.
 */
export const AUTH_PUBLIC_PREFIXES = [
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
];

function underPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Credential headers stay at the edge: services trust `x-platform-identity` only. */
const CREDENTIAL_HEADERS = ['authorization', 'xi-api-key', 'dpop'];

export function mountEdgeRoutes(app: Express, deps: EdgeRouteDeps): void {
  const { publicUrl, logger } = deps;
  const base = publicUrl.replace(/\/$/, '');
  const signIdentity = createIdentitySigner(deps.internalSecret);
  const speechAudiences = [base, `${base}/v1`];
  const contentAudiences = [base, `${base}/api`];
  app.use(refuseNonCanonicalPaths);
  if (deps.reference) app.use(deps.reference);

  // A proxied request must never become an unhandled rejection (it would end the process).
  const settle = (work: Promise<void>, res: Response) =>
    void work.catch((err: unknown) => {
      logger.error({ err }, 'forwarding failed unexpectedly');
      res.destroy();
    });

  // The services limit by the client address the gateway resolved (TRUSTED_PROXIES), signed with
  // the identity: never by an X-Forwarded-For they would have to trust.
  const toContent = (req: Request, res: Response, body?: Buffer, surface: 'content' | 'graphql' = 'content') =>
    settle(
      signIdentity({ ...req.identity!, clientAddress: clientAddress(req) }).then((identity) =>
        forward(req, res, deps.content, req.originalUrl, {
          drop: CREDENTIAL_HEADERS,
          set: { 'x-platform-identity': identity },
          ...(body ? { body } : {}),
          maxBodyBytes: deps.maxBodyBytes,
          onFailure: (err) => sendEdgeError(res, surface, err),
        }),
      ),
      res,
    );

  // Every HTTP route group authenticates, then limits: a JWT's revocation is checked by the plan
  // limiter in the same Redis round trip as the rate and concurrency limits (limits/admission.ts).
  // Speech API: every call needs a credential (docs/speech.md, "Authentication everywhere").
  const speechNeeds = (req: Request): RouteNeeds => ({
    audiences: speechAudiences,
    scope: READ_METHODS.has(req.method) ? 'speech:read' : 'speech:write',
    credentialsRequired: true,
    method: req.method,
    url: publicRequestUrl(publicUrl, req),
  });
  const speechApi = (routers: Router[]) => {
    const speech = express.Router();
    speech.use(authenticateRequests('speech', speechNeeds, deps.authDeps, deps.failedCredentials, logger));
    speech.use(limitRequests(deps.limiter, 'speech', logger, credentialRefusal('speech', deps.failedCredentials, logger)));
    for (const router of routers) speech.use(router);
    speech.use((_req, res) => sendEdgeError(res, 'speech', { status: 404, code: 'not_found', message: 'no such speech endpoint' }));
    return speech;
  };
  app.use('/v1', speechApi(deps.speech ?? []));
  if (deps.speechV2) app.use('/v2', speechApi(deps.speechV2));

  // Content REST: register/login/refresh are public; content itself refuses anonymous callers elsewhere.
  const contentNeeds = (req: Request): RouteNeeds | 'skip' =>
    underPrefix(req.path, '/auth')
      ? 'skip'
      : {
          audiences: contentAudiences,
          scope: READ_METHODS.has(req.method) ? 'content:read' : 'content:write',
          credentialsRequired: false,
          method: req.method,
          url: publicRequestUrl(publicUrl, req),
          revocation: 'deferred',
        };
  const rest = express.Router();
  rest.use(authenticateRequests('content', contentNeeds, deps.authDeps, deps.failedCredentials, logger));
  rest.use(limitRequests(deps.limiter, 'content', logger, credentialRefusal('content', deps.failedCredentials, logger)));
  rest.use((req, res) => toContent(req, res));
  app.use('/api/v1', rest);

  // GraphQL queries and mutations over HTTP (subscriptions are the WebSocket's, served here). The
  // credential is checked for the audience here and for the operation's scope once the body has been
  // read, after the limits: no body is read before the limiter and the authenticator can refuse it.
  const graphqlNeeds = (req: Request): RouteNeeds => ({
    audiences: contentAudiences,
    scope: '',
    credentialsRequired: false,
    method: req.method,
    url: publicRequestUrl(publicUrl, req),
    revocation: 'deferred',
  });
  const graphql = express.Router();
  graphql.use(authenticateRequests('graphql', graphqlNeeds, deps.authDeps, deps.failedCredentials, logger));
  graphql.use(limitRequests(deps.limiter, 'graphql', logger, credentialRefusal('graphql', deps.failedCredentials, logger)));
  graphql.use(graphqlRequests(deps.maxGraphqlBodyBytes));
  graphql.use((req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : undefined;
    toContent(req, res, req.method === 'POST' ? (body ?? Buffer.alloc(0)) : undefined, 'graphql');
  });
  app.use('/graphql', graphql);

  if (deps.dashboard) app.use(DASHBOARD_PATH, deps.dashboard);

  // The authorization server's public endpoints, Host and X-Forwarded-* preserved for the issuer.
  app.use((req, res, next) => {
    const prefix = AUTH_PUBLIC_PREFIXES.find((p) => underPrefix(req.path, p));
    if (!prefix) {
      next();
      return;
    }
    labelRoute(res, prefix);
    // Auth authenticates its own callers here; the identity only vouches for the client's address
    // (its sign-in and device-code limits count per address).
    settle(
      signIdentity({ roles: [], scope: '', method: 'anonymous', clientAddress: clientAddress(req) }).then((identity) =>
        forward(req, res, deps.auth, req.originalUrl, {
          set: { 'x-platform-identity': identity },
          maxBodyBytes: deps.maxBodyBytes,
          onFailure: (err) => sendEdgeError(res, 'oauth', err),
        }),
      ),
      res,
    );
  });

  if (deps.pages) app.use(deps.pages);

  app.use((_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });
}
