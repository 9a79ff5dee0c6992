import type { NextFunction, Request, Response } from 'express';
import { nonCanonicalPath } from './canonical-path';
import { sendEdgeError, type Surface } from './edge-errors';

/** The interface a path belongs to, by its first segment, for the shape of a refusal. */
export function surfaceOf(path: string): Surface {
  const first = path.split('/', 2)[1] ?? '';
  // `/v2` holds the speech API's one endpoint of the hosted API's second version (voice search).
  if (first === 'v1' || first === 'v2') return 'speech';
  if (first === 'api') return 'content';
  if (first === 'graphql') return 'graphql';
  return 'oauth';
}

/**
 * Runs before any route is chosen: a request whose path is not canonical (canonical-path.ts) gets
 * 400 in its interface's shape and goes nowhere, so authentication, limits and routing all see the
 * path the upstream will see.
 */
export function refuseNonCanonicalPaths(req: Request, res: Response, next: NextFunction): void {
  const why = nonCanonicalPath(req.originalUrl);
  if (!why) {
    next();
    return;
  }
  sendEdgeError(res, surfaceOf(req.originalUrl), { status: 400, code: 'invalid_request', message: why, field: 'path' });
}
