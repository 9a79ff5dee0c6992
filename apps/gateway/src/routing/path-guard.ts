import type { NextFunction, Request, Response } from 'express';
import { nonCanonicalPath } from './canonical-path';
import { sendEdgeError, type Surface } from './edge-errors';
import { mountPaths } from './edge-route';
import { EDGE_ROUTES, WEBSOCKET_ROUTES } from './edge-route-table';

const firstSegment = (path: string): string => path.split('/', 2)[1] ?? '';

/**
 * Each mount's first path segment, HTTP or WebSocket, and its interface: the first mount to name a
 * segment owns it, as the routes are tried in order.
 */
const SURFACE_OF_SEGMENT: ReadonlyMap<string, Surface> = [...EDGE_ROUTES, ...WEBSOCKET_ROUTES].reduce(
  (owners, route) => {
    for (const path of mountPaths(route)) {
      const segment = firstSegment(path);
      if (!owners.has(segment)) owners.set(segment, route.surface);
    }
    return owners;
  },
  new Map<string, Surface>(),
);

/**
 * The interface a path belongs to, by the mount whose first segment it shares (`/v1/x` is the speech
 * API's, `/api/x` content's), for the shape of a refusal made before a route is chosen. A path under
 * no mount (the playground's pages, the reference) is refused in the OAuth `{error, error_description}`
 * shape, the plain JSON error the gateway's other answers use.
 */
export function surfaceOf(path: string): Surface {
  return SURFACE_OF_SEGMENT.get(firstSegment(path)) ?? 'oauth';
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
