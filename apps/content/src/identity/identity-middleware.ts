import type { NextFunction, Request, Response } from 'express';
import { IDENTITY_HEADER, IdentityError, verifyIdentity } from '@platform/identity';
import { callerFromIdentity, type Caller } from './caller';
import { createIdentityCache } from './identity-cache';

/** How long a verified header is remembered at most after it was issued: within the verifier's maximum age (60 s lifetime + 5). */
const REMEMBER_SECONDS = 60;

/**
 * Content sits behind the gateway, which vouches for the caller in a signed header
 * (architecture.md). No valid header, no service: 401 in the REST interface's shape.
 * A header already verified is not verified again while it is valid (identity-cache.ts).
 */
export function identityMiddleware(secret: string) {
  const verified = createIdentityCache();
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const raw = req.headers[IDENTITY_HEADER];
    const header = typeof raw === 'string' ? raw : undefined;
    try {
      let identity = header === undefined ? undefined : verified.get(header, Date.now());
      if (!identity) {
        identity = await verifyIdentity(header, secret);
        if (header !== undefined) verified.put(header, identity, REMEMBER_SECONDS, Date.now());
      }
      // The address the gateway signed (it alone decides whether X-Forwarded-For is believed).
      res.locals.caller = callerFromIdentity(identity, identity.clientAddress ?? req.socket.remoteAddress ?? 'unknown');
      next();
    } catch (err) {
      if (!(err instanceof IdentityError)) return next(err);
      res.status(401).json({ error: { code: 401, message: 'Missing or invalid caller identity' } });
    }
  };
}

export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}
