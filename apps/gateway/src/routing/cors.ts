import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { sendEdgeError, type Surface } from './edge-errors';

/**
 * What a browser page on another origin may do on one edge route (the Fetch standard's CORS
 * protocol): the methods and request headers its preflight is answered with, and the response
 * headers its script may read. Declared on the route (`EdgeRoute.cors`, edge-route-table.ts).
 */
export interface CorsPolicy {
  methods: readonly string[];
  /** Request headers the interface reads (credentials included: the APIs authenticate by header). */
  allowHeaders: readonly string[];
  /** Response headers a script needs beyond the CORS-safelisted ones (Retry-After, WWW-Authenticate…). */
  exposeHeaders: readonly string[];
}

/** How long a browser may reuse a preflight's answer (seconds); Chromium caps it at 7200. */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * The route's CORS answer for origins in `allowed` (CORS_ALLOWED_ORIGINS, exact origins). An allowed
 * origin is echoed, never `*`, and `Access-Control-Allow-Credentials` is never sent: the interfaces
 * authenticate by header (bearer token, API key, DPoP), so no page can ride a user's cookies. A
 * preflight (`OPTIONS` with `Access-Control-Request-Method`) ends here: 204 for an allowed origin,
 * 403 in the route's error shape for any other (the browser then refuses the request). A request
 * from an origin not allowed goes on, without CORS headers, so its script cannot read the answer.
 */
export function corsRequests(policy: CorsPolicy, allowed: ReadonlySet<string>, surface: Surface): RequestHandler {
  const methods = policy.methods.join(', ');
  const allowHeaders = policy.allowHeaders.join(', ');
  const exposeHeaders = policy.exposeHeaders.join(', ');
  return (req: Request, res: Response, next: NextFunction): void => {
    // The answer depends on Origin: caches must keep one per origin, allowed or not.
    res.vary('Origin');
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (origin === undefined) {
      next();
      return;
    }
    if (!allowed.has(origin)) {
      if (preflight) {
        sendEdgeError(res, surface, {
          status: 403,
          code: 'origin_not_allowed',
          message: `origin ${origin} is not in CORS_ALLOWED_ORIGINS`,
        });
        return;
      }
      next();
      return;
    }
    res.set('access-control-allow-origin', origin);
    if (!preflight) {
      res.set('access-control-expose-headers', exposeHeaders);
      next();
      return;
    }
    res.vary('Access-Control-Request-Method').vary('Access-Control-Request-Headers');
    res
      .set({
        'access-control-allow-methods': methods,
        'access-control-allow-headers': allowHeaders,
        'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
      })
      .status(204)
      .end();
  };
}
