import type { Express, NextFunction, Request, Response } from 'express';
import type { Logger } from '@platform/logger';
import type { ContentDeps } from '../domain/deps';
import { identityMiddleware } from '../identity/identity-middleware';
import { restApi } from './rest-app';
import { restErrorHandler } from './rest-error-handler';

interface MountOptions {
  deps: ContentDeps;
  logger: Logger;
  internalSecret: string;
  /** Mounts POST /graphql (after identity). */
  mountGraphQL?: (app: Express) => void;
}

/** Everything but health routes: identity first, then REST under /api/v1 and GraphQL at /graphql. */
export function mountContent(app: Express, options: MountOptions): void {
  app.use(identityMiddleware(options.internalSecret));
  app.use('/api/v1', restApi(options.deps, options.logger));
  options.mountGraphQL?.(app);
  const render = restErrorHandler(options.logger);
  app.use((_req: Request, res: Response) => {
    res.status(404).json({ error: { code: 404, message: 'Not found' } });
  });
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => render(err, req, res, next));
}
