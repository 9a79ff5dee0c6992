import { Router } from 'express';
import type { SigningKeys } from './signing-keys';

/** `GET /jwks`: current and previous public keys, so tokens signed before a rotation still verify. */
export function jwksRoute(keys: SigningKeys): Router {
  const router = Router();
  router.get('/jwks', async (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/jwk-set+json').send(JSON.stringify(await keys.jwks()));
  });
  return router;
}
