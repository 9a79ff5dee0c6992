import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@platform/logger';
import { sendEdgeError, type Surface } from '../routing/edge-errors';
import { ANONYMOUS, authenticate, type AuthenticateDeps, type RouteNeeds } from './authenticate';
import { readCredential } from './credentials';
import './request-identity';

/** `skip` lets a route take everyone as anonymous (credentials are not even looked at). */
export type NeedsFor = (req: Request) => RouteNeeds | 'skip';

/** Sets `req.identity` or answers the route's interface's 400/401/403/503. */
export function authenticateRequests(surface: Surface, needsFor: NeedsFor, deps: AuthenticateDeps, logger: Logger) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const needs = needsFor(req);
    if (needs === 'skip') {
      req.identity = ANONYMOUS;
      next();
      return;
    }
    try {
      const outcome = await authenticate(readCredential(req.headers), needs, deps);
      if (!outcome.ok) {
        sendEdgeError(res, surface, outcome.error);
        return;
      }
      req.identity = outcome.identity;
      next();
    } catch (err) {
      logger.error({ err }, 'authentication failed unexpectedly');
      sendEdgeError(res, surface, { status: 503, code: 'upstream_unavailable', message: 'authentication is temporarily unavailable' });
    }
  };
}

/** The URL as the client addressed it: the public origin plus the path (DPoP `htu`). */
export function publicRequestUrl(publicUrl: string, req: Request): string {
  const path = req.originalUrl.split('?')[0] ?? '/';
  // Concatenated, not resolved, so `//host/x` cannot point the URL at another origin.
  return `${publicUrl.replace(/\/$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}
