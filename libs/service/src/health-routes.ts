import { Router } from 'express';
import { withTimeout } from './with-timeout';

/** Resolves when the dependency answers; a string it resolves with says what answered (shown instead of `ok`). */
export type ReadinessCheck = () => Promise<unknown>;

const CHECK_TIMEOUT_MS = 2000;

/**
 * `/healthz` answers while the process runs; `/readyz` answers 200 only when every dependency
 * answers and the service is not draining, so a load balancer stops routing to it first.
 */
export function healthRoutes(checks: Record<string, ReadinessCheck>, isDraining: () => boolean): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (isDraining()) {
      res.status(503).json({ status: 'draining' });
      return;
    }
    const results: Record<string, string> = {};
    let ready = true;
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          const answer = await withTimeout(check(), CHECK_TIMEOUT_MS, name);
          results[name] = typeof answer === 'string' ? answer : 'ok';
        } catch (err) {
          ready = false;
          results[name] = err instanceof Error ? err.message : 'failed';
        }
      }),
    );
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks: results });
  });
  return router;
}
