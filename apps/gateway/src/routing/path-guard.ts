import type { NextFunction, Request, Response } from 'express';
import { nonCanonicalPath } from './canonical-path';
import { sendEdgeError, type Surface } from './edge-errors';
import { mountPaths } from './edge-route';
import { EDGE_ROUTES, WEBSOCKET_ROUTES } from './edge-route-table';

const firstSegment = (path: string): string => path.split('/', 2)[1] ?? '';

const MOUNTS = [...EDGE_ROUTES, ...WEBSOCKET_ROUTES].flatMap((route) =>
  mountPaths(route).map((path) => ({ path: path.replace(/\/$/, ''), surface: route.surface })),
);

/**
 * Each mount's first path segment, HTTP or WebSocket, and the interface of the shortest mount that
 * starts with it (`/v1` is the speech API's although `/v1/audio`, OpenAI's, is tried first).
 */
const SURFACE_OF_SEGMENT: ReadonlyMap<string, Surface> = new Map(
  [...MOUNTS]
    .sort((a, b) => a.path.length - b.path.length) // stable: of two as short, the first in order
    .reverse()
    .map((m) => [firstSegment(m.path), m.surface]),
);

/**
 * The interface a path belongs to, for the shape of a refusal made before a route is chosen: the
 * first mount (in the tables' order) the path is under, else the mount whose first segment it
 * shares (`/v1/x` is the speech API's, `/api/x` content's). A path under no mount (the playground's
 * pages, the reference) is refused in the OAuth `{error, error_description}` shape, the plain JSON
 * error the gateway's other answers use.
 */
export function surfaceOf(path: string): Surface {
  const mount = MOUNTS.find((m) => path === m.path || path.startsWith(`${m.path}/`));
  return mount?.surface ?? SURFACE_OF_SEGMENT.get(firstSegment(path)) ?? 'oauth';
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
