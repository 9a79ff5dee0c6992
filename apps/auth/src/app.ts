import type { Express } from 'express';
import type { Deps } from './deps';
import { oauthErrorHandler } from './http/errors';
import { internalRoutes } from './internal/internal-routes';
import { jwksRoute } from './keys/jwks-route';

/** Mounts every route of the authorization server on `app`. */
export function mountAuth(app: Express, deps: Deps): void {
  app.use('/internal', internalRoutes(deps));
  app.use(jwksRoute(deps.keys));
  app.use(oauthErrorHandler(deps.logger));
}
