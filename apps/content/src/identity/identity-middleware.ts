import type { NextFunction, Request, Response } from 'express';
import { IDENTITY_HEADER, IdentityError, verifyIdentity } from '@platform/identity';
import { callerFromIdentity, type Caller } from './caller';

/**
 * Content sits behind the gateway, which vouches for the caller in a signed header
 * (architecture.md). No valid header, no service: 401 in the REST interface's shape.
 */
export function identityMiddleware(secret: string) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.headers[IDENTITY_HEADER];
    try {
      const identity = await verifyIdentity(typeof header === 'string' ? header : undefined, secret);
      res.locals.caller = callerFromIdentity(identity, req.ip ?? 'unknown');
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
