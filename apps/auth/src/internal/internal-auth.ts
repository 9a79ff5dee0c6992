import type { RequestHandler } from 'express';
import { safeEqual } from '../crypto/secrets';

/** `/internal/*` is for the platform's own services: they present INTERNAL_SECRET (compared in constant time). */
export function requireInternalSecret(secret: string): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-internal-secret'];
    if (typeof given !== 'string' || !safeEqual(given, secret)) {
      res.status(401).json({ error: 'unauthorized', error_description: 'x-internal-secret missing or wrong' });
      return;
    }
    next();
  };
}
