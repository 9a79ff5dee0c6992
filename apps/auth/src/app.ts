import type { Express } from 'express';
import { adminRoutes } from './admin/admin-routes';
import type { Deps } from './deps';
import { oauthErrorHandler } from './http/error-answers';
import { internalRoutes } from './internal/internal-routes';
import { jwksRoute } from './keys/jwks-route';
import { deviceAuthorizationRoute } from './oauth/device-authorization-route';
import { introspectRoute } from './oauth/introspect-route';
import { metadataRoute } from './oauth/metadata-route';
import { revokeRoute } from './oauth/revoke-route';
import { discoveryRoute } from './oidc/discovery-route';
import { registrationRoutes } from './registration/registration-routes';
import { userinfoRoute } from './oidc/userinfo-route';
import { tokenRoute } from './oauth/token-route';
import { authorizeRoutes } from './pages/authorize-routes';
import { deviceRoutes } from './pages/device-routes';
import { loginRoutes } from './pages/login-routes';
import { logoutRoutes } from './pages/logout-routes';
import { pageStyleRoutes } from './pages/page-style';
import { parRoute } from './par/par-route';

/** Mounts every route of the authorization server on `app`. */
export function mountAuth(app: Express, deps: Deps): void {
  // The hot endpoints first: every router in front of them is walked on each request.
  app.use(tokenRoute(deps));
  app.use(introspectRoute(deps));
  app.use('/internal', internalRoutes(deps));
  app.use('/admin', adminRoutes(deps));
  app.use(jwksRoute(deps.keys));
  app.use(metadataRoute(deps));
  app.use(discoveryRoute(deps));
  app.use(userinfoRoute(deps));
  app.use(revokeRoute(deps));
  app.use(deviceAuthorizationRoute(deps));
  app.use(registrationRoutes(deps));
  app.use(parRoute(deps));
  app.use(authorizeRoutes(deps));
  app.use(pageStyleRoutes());
  app.use(loginRoutes(deps));
  app.use(logoutRoutes(deps));
  app.use(deviceRoutes(deps));
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found', error_description: 'no such endpoint' });
  });
  app.use(oauthErrorHandler(deps.logger));
}
