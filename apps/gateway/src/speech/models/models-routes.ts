import { Router } from 'express';
import type { Model } from '@platform/speech-engine';

/**
 * `GET /models` answers `{models: [...]}` as seed 000 says. (The hosted API answers a bare array,
 * so its SDK's `models.list()` cannot parse this; the seed wins, see docs/speech.md.)
 */
export function modelsRoutes(catalogue: readonly Model[]): Router {
  const router = Router();
  router.get('/models', (_req, res) => {
    res.json({ models: catalogue });
  });
  return router;
}
