import express, { Router } from 'express';
import type { Logger } from '@platform/logger';
import { refuseDeepJson } from '@platform/service';
import type { ContentDeps } from '../domain/deps';
import { authRoutes } from '../users/auth-routes';
import { userRoutes } from '../users/user-routes';
import { postRoutes } from '../posts/post-routes';
import { restErrorHandler } from './rest-error-handler';
import { toRestError } from './domain-to-rest';

/** Largest JSON body accepted (a post's content is at most 100 000 characters). */
const BODY_LIMIT = '512kb';

/** `/api/v1`: the content REST API (docs/content.md). The identity middleware runs before this router. */
export function restApi(deps: ContentDeps, logger: Logger): Router {
  const router = Router();
  // Nesting past MAX_JSON_DEPTH is refused before JSON.parse, whose cost it multiplies.
  router.use(express.json({ limit: BODY_LIMIT, strict: true, verify: refuseDeepJson }));
  router.use(authRoutes(deps));
  router.use(userRoutes(deps));
  router.use(postRoutes(deps));
  router.use(() => {
    // A route miss is "any other exception" of the REST error rules: coded shape, unlike a missing post.
    throw Object.assign(new Error('No route matches this method and path'), { status: 404 });
  });
  const render = restErrorHandler(logger);
  router.use((err: unknown, req: express.Request, res: express.Response, next: express.NextFunction) =>
    render(toRestError(err), req, res, next),
  );
  return router;
}
