import type { IncomingMessage, ServerResponse } from 'node:http';
import { Histogram, type Registry } from 'prom-client';
import { metricsRegistry } from './registry';

export const UNMATCHED_ROUTE = 'unmatched';

/** Seconds; from a health check's milliseconds to a slow synthesis stream's tens of seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Route templates named by handlers that answer outside an express route (a proxy, a fast lane). */
const namedRoutes = new WeakMap<ServerResponse, string>();

/** What express adds to a request once a route matched (absent on a plain node:http request). */
type RoutedRequest = IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };

/**
 * Names the route template of a request answered outside an express route (a proxy mounted with
 * `app.use`, say), for `http_server_request_duration_seconds`'s `route` label. A template, never a
 * raw path: the label's values must stay few.
 */
export function labelRoute(res: ServerResponse, template: string): void {
  namedRoutes.set(res, template);
}

function routeTemplate(req: RoutedRequest, res: ServerResponse): string {
  const named = namedRoutes.get(res);
  if (named !== undefined) return named;
  const path = req.route?.path;
  const mount = req.baseUrl ?? '';
  // An express route's path is its template (`/v1/voices/:voice_id`); the ids a request carries
  // never reach the label. Without a route, a router or middleware mounted at a path answered (a
  // proxy at `/api/v1`, GraphQL at `/graphql`): its mount path names it. Mount paths are literal
  // in every app (a `:param` in one would put the raw value in `baseUrl`). A route declared with a
  // RegExp or an array has no one template.
  if (typeof path === 'string') return `${mount}${path}` || '/';
  return mount || UNMATCHED_ROUTE;
}

function requestDuration(registry: Registry): Histogram<'route' | 'method' | 'status_code'> {
  const existing = registry.getSingleMetric('http_server_request_duration_seconds');
  if (existing) return existing as Histogram<'route' | 'method' | 'status_code'>;
  return new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response, by express route template',
    labelNames: ['route', 'method', 'status_code'],
    buckets: BUCKETS,
    registers: [registry],
  });
}

/**
 * Express (or plain node:http) middleware recording `http_server_request_duration_seconds` (labels
 * `route`, `method`, `status_code`) when the response finishes. The route is the matched express
 * route's template joined to its router's mount path; else the mount path of the router that
 * answered; else `unmatched` (a 404 or a refusal by a middleware mounted without a path).
 */
export function httpMetrics(
  registry: Registry = metricsRegistry,
): (req: RoutedRequest, res: ServerResponse, next: () => void) => void {
  const histogram = requestDuration(registry);
  return (req, res, next) => {
    const stop = histogram.startTimer();
    res.once('finish', () => {
      stop({ route: routeTemplate(req, res), method: req.method, status_code: String(res.statusCode) });
    });
    next();
  };
}
