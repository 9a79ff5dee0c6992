import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from './create-logger';
import { redactHeaders, redactUrl } from './redact';

export const REQUEST_ID_HEADER = 'x-request-id';

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;
const QUIET = new Set(['/healthz', '/readyz']);

type LoggedRequest = IncomingMessage & { originalUrl?: string; id?: string };

/**
 * One log line per request (`request completed`: `req.{id,method,url}`, `res.statusCode`,
 * `responseTime`, the response's headers redacted; `request errored` at error level for a 5xx) and a request id: taken from
 * `x-request-id` when it is well formed (so one id follows a request through the gateway to the
 * services), generated otherwise, echoed on the response and kept as `req.id`. URLs are logged
 * with their query values redacted (redact.ts). Written here rather than taken from pino-http,
 * which builds a child logger and serialisers for every request even when nothing is logged: a
 * measurable share of a proxied request or a token request.
 */
export function requestLogger(logger: Logger): (req: LoggedRequest, res: ServerResponse, next: () => void) => void {
  return (req, res, next) => {
    const given = req.headers[REQUEST_ID_HEADER];
    const id = typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    const target = req.originalUrl || req.url || '/';
    if (QUIET.has(target.split('?', 1)[0]!) || !logger.isLevelEnabled('info')) {
      if (logger.isLevelEnabled('error')) {
        res.once(
          'finish',
          () =>
            res.statusCode >= 500 &&
            logger.error(
              { req: { id, method: req.method, url: redactUrl(target) }, res: { statusCode: res.statusCode } },
              'request errored',
            ),
        );
      }
      next();
      return;
    }
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const line = {
        req: { id, method: req.method, url: redactUrl(target) },
        res: { statusCode: res.statusCode, headers: redactHeaders(res.getHeaders()) },
        responseTime: Number(process.hrtime.bigint() - start) / 1e6,
      };
      if (res.statusCode >= 500) logger.error(line, 'request errored');
      else logger.info(line, 'request completed');
    });
    next();
  };
}
