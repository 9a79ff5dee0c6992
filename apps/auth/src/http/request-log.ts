import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REQUEST_ID_HEADER, type Logger } from '@platform/logger';

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;
const QUIET = new Set(['/healthz', '/readyz']);

/**
 * One log line per request (`request completed`, the same fields as the shared pino-http logger:
 * `req.{id,method,url}`, `res.statusCode`, `responseTime`) and the `x-request-id` echo. Auth uses
 * this instead of pino-http because pino-http builds a child logger and serialisers for every
 * request even when nothing is logged, a measurable share of a /token or /introspect request.
 * URLs are logged without their query string: /authorize and /device carry codes and state in it.
 */
export function requestLog(logger: Logger): (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, next: () => void) => void {
  return (req, res, next) => {
    const given = req.headers[REQUEST_ID_HEADER];
    const id = typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
    res.setHeader(REQUEST_ID_HEADER, id);
    const url = (req.originalUrl || req.url || '/').split('?', 1)[0]!;
    if (QUIET.has(url) || !logger.isLevelEnabled('info')) {
      if (logger.isLevelEnabled('error')) res.once('finish', () => res.statusCode >= 500 && logger.error({ req: { id, method: req.method, url }, res: { statusCode: res.statusCode } }, 'request errored'));
      next();
      return;
    }
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const line = { req: { id, method: req.method, url }, res: { statusCode: res.statusCode }, responseTime: Number(process.hrtime.bigint() - start) / 1e6 };
      if (res.statusCode >= 500) logger.error(line, 'request errored');
      else logger.info(line, 'request completed');
    });
    next();
  };
}
