import type { NextFunction, Request, Response } from 'express';
import { SpeechError, speechErrorBody } from '@platform/errors';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import { isStoreUnavailable } from '@platform/stores';

/** The caller as the gateway's authentication set it (`req.identity`). */
export interface Caller {
  accountId: string;
  plan: string | undefined;
}

/**
 * Voices, history and user data belong to an account: anonymous callers get 401, callers without
 * the scope 403 (`speech:read` to read, `speech:write` to change; API keys hold both).
 */
export function callerOf(req: Request, need: 'speech:read' | 'speech:write'): Caller {
  const identity = (req as Request & { identity?: Identity }).identity;
  if (!identity?.sub) throw new SpeechError(401, 'unauthorized', 'An API key is required for this endpoint.');
  if (identity.method !== 'internal' && !identity.scope.split(' ').includes(need)) {
    throw new SpeechError(403, 'unauthorized', `This endpoint needs the scope ${need}.`);
  }
  return { accountId: identity.sub, plan: identity.plan };
}

/** Wraps an async handler so every error reaches `accountErrors`. */
export function handle(fn: (req: Request, res: Response) => Promise<void>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    fn(req, res).catch(next);
  };
}

/**
 * Errors of these routers in seed 000's shape. Known errors carry their status; anything else is
 * logged and answered as a 500 with no detail (a bug, never a reaction to input).
 */
export function accountErrors(logger: Logger) {
  return (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(err);
      return;
    }
    if (err instanceof SpeechError) {
      res.status(err.httpStatus).json(err.toBody());
      return;
    }
    // express.json: malformed or oversized JSON.
    const status = (err as { status?: unknown; type?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res.status(400).json(speechErrorBody('bad_request', status === 413 ? 'The request body is too large.' : 'The request body is not valid JSON.'));
      return;
    }
    if (isStoreUnavailable(err)) {
      res.status(503).json(speechErrorBody('error', 'The speech store is temporarily unavailable; try again.'));
      return;
    }
    logger.error({ err }, 'speech account route failed');
    res.status(500).json(speechErrorBody('error', 'Internal server error.'));
  };
}
