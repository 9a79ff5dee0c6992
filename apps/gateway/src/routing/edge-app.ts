import path from 'node:path';
import type { Queue } from 'bullmq';
import type { Express, Router } from 'express';
import { requestLogger, type Logger } from '@platform/logger';
import { queueDashboardRoutes } from '../admin/queue-dashboard';
import type { QueueDashboardConfig } from '../admin/queue-dashboard-config';
import { ownCallTimeout, type EdgeAuthentication } from '../auth/edge-authentication';
import type { EdgeLimits } from '../limits/edge-limits';
import type { LimitsConfig } from '../limits/limits-config';
import { proxyTrust } from '../limits/trusted-proxies';
import type { PagesConfig } from '../playground/pages-config';
import { DEFAULT_PLAYGROUND_DIR, playgroundRoutes } from '../playground/playground-routes';
import { referenceRoutes } from '../reference/reference-routes';
import type { UpstreamName } from './edge-route-table';
import { mountEdgeRoutes } from './edge-routes';
import type { RoutingConfig } from './routing-config';
import type { ShutdownDrain } from './shutdown-drain';
import type { Upstream } from './upstream';

/**
 * What the edge app reads: the routing's settings, the pages' and the queue dashboard's, the client
 * address's proxies (the limits'), and the gateway's address and internal secret.
 */
type EdgeAppConfig = RoutingConfig &
  PagesConfig &
  QueueDashboardConfig &
  Pick<LimitsConfig, 'TRUSTED_PROXIES'> & { PUBLIC_URL: string; INTERNAL_SECRET: string; KAFKA_BROKERS: string[] };

/**
 * The gateway's HTTP surface on the app `runService` made: the client address from TRUSTED_PROXIES,
 * the request log, the shutdown drain, then the routes (edge-routes.ts) with the pages the gateway
 * serves itself: the reference, the queue dashboard and the playground.
 */
export function mountEdgeApp(
  app: Express,
  config: EdgeAppConfig,
  deps: {
    upstreams: Record<UpstreamName, Upstream>;
    authentication: EdgeAuthentication;
    limits: EdgeLimits;
    speech: { router: Router; routerV2: Router; routerOpenAi: Router; queue: Queue };
    drain: ShutdownDrain;
    logger: Logger;
  },
): void {
  const { authentication, limits, logger } = deps;
  const pagesDir = config.PLAYGROUND_DIR || DEFAULT_PLAYGROUND_DIR;
  app.set('trust proxy', proxyTrust(config.TRUSTED_PROXIES));
  app.use(requestLogger(logger));
  app.use(deps.drain.requests);
  mountEdgeRoutes(app, {
    publicUrl: config.PUBLIC_URL,
    corsAllowedOrigins: new Set(config.CORS_ALLOWED_ORIGINS),
    internalSecret: config.INTERNAL_SECRET,
    maxBodyBytes: config.MAX_BODY_BYTES,
    maxGraphqlBodyBytes: config.MAX_GRAPHQL_BODY_BYTES,
    logger,
    authDeps: authentication.authDeps,
    limiter: limits.limiter,
    failedCredentials: limits.failedCredentials,
    upstreams: deps.upstreams,
    speech: [deps.speech.router],
    speechV2: [deps.speech.routerV2],
    openaiSpeech: [deps.speech.routerOpenAi],
    pages: config.PLAYGROUND_CLIENT_ID
      ? playgroundRoutes({ dir: pagesDir, publicUrl: config.PUBLIC_URL, clientId: config.PLAYGROUND_CLIENT_ID, logger })
      : null,
    dashboard: queueDashboardRoutes({
      queues: [deps.speech.queue],
      publicUrl: config.PUBLIC_URL,
      authDeps: authentication.authDeps,
      failedCredentials: limits.failedCredentials,
      logger,
      ...(config.QUEUE_DASHBOARD_CLIENT_ID
        ? {
            signIn: {
              authUrl: config.AUTH_URL,
              clientId: config.QUEUE_DASHBOARD_CLIENT_ID,
              timeoutMs: ownCallTimeout(config),
            },
          }
        : {}),
    }),
    reference: referenceRoutes({
      publicUrl: config.PUBLIC_URL,
      kafkaBrokers: config.KAFKA_BROKERS,
      clientId: config.API_REFERENCE_CLIENT_ID,
      dir: path.join(pagesDir, 'reference'),
      logger,
    }),
  });
}
