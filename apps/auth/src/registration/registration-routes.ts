import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Deps } from '../deps';
import { sendNoStoreJson } from '../http/no-store-json';
import { OAuthError } from '../oauth/oauth-error';
import {
  deleteDynamicClient,
  readDynamicClient,
  registerDynamicClient,
  updateDynamicClient,
} from './client-registration';
import { registrationLimit } from './registration-limit';

/**
 * Dynamic client registration (RFC 7591) at `/register` and client management (RFC 7592) at
 * `/register/:client_id` (docs/auth.md "Dynamic client registration"). JSON in and out, no-store,
 * errors `{error, error_description}`; every request counted against its address first.
 */
export function registrationRoutes(deps: Deps): Router {
  const router = Router();
  const json = express.json({ limit: '16kb', strict: true });
  const clientId = (req: Request) => String(req.params.clientId);

  router.use('/register', registrationLimit(deps));
  router.post('/register', json, async (req, res) => {
    sendNoStoreJson(res, 201, await registerDynamicClient(deps, req, req.body));
  });
  router.get('/register/:clientId', async (req, res) => {
    sendNoStoreJson(res, 200, await readDynamicClient(deps, req, clientId(req)));
  });
  router.put('/register/:clientId', json, async (req, res) => {
    sendNoStoreJson(res, 200, await updateDynamicClient(deps, req, clientId(req), req.body));
  });
  router.delete('/register/:clientId', async (req, res) => {
    await deleteDynamicClient(deps, req, clientId(req));
    res.setHeader('Cache-Control', 'no-store');
    res.status(204).end();
  });
  // A body express.json would not read (malformed, too large) is metadata the server cannot accept.
  router.use('/register', (err: unknown, _req: Request, _res: Response, next: NextFunction) => {
    const status = (err as { status?: unknown }).status;
    if (!(err instanceof OAuthError) && typeof status === 'number' && status >= 400 && status < 500) {
      next(
        new OAuthError(
          'invalid_client_metadata',
          status === 413 ? 'the metadata is too large (16 KiB at most)' : 'the body must be JSON client metadata',
          status === 413 ? 413 : 400,
        ),
      );
      return;
    }
    next(err);
  });
  return router;
}
