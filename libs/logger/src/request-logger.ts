import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from './create-logger';
import { redactHeaders, redactUrl } from './redact';

export const REQUEST_ID_HEADER = 'x-request-id';

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Per-request child logger with a request id: taken from `x-request-id` when it is well formed
 * (so one id follows a request through the gateway to the services), generated otherwise, and
 * echoed on the response. The URL is logged with its query values redacted and the response's
 * headers without cookies or a redirect's code (redact.ts).
 */
export function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const given = req.headers[REQUEST_ID_HEADER];
      const id = typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
      res: (res: { statusCode: number; headers?: Record<string, string | number | string[] | undefined> }) => ({
        statusCode: res.statusCode,
        headers: redactHeaders(res.headers),
      }),
    },
  });
}
