import { Router } from 'express';
import type { Logger } from '@platform/logger';
import type { Model } from '@platform/speech-engine';
import { responseShape, SDK_NAME_HEADER, SHAPE_PARAMETER } from '../response-shape';
import { speechErrorHandler } from '../speech-errors';

/**
 * `GET /models`: `{models: [...]}` as our interface document says, or the hosted API's bare array
 * for the official SDKs (whose `models.list()` parses only that) and `?shape=hosted`
 * (`responseShape`, docs/speech.md "Response shapes").
 */
export function modelsRoutes(catalogue: readonly Model[], logger: Logger): Router {
  const router = Router();
  router.get('/models', (req, res) => {
    // The answer depends on the header: a shared cache must not hand one client's shape to another.
    res.vary(SDK_NAME_HEADER);
    const shape = responseShape(req.query[SHAPE_PARAMETER], req.headers);
    res.json(shape === 'hosted' ? catalogue : { models: catalogue });
  });
  router.use(speechErrorHandler(logger));
  return router;
}
