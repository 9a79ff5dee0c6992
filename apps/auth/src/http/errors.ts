import type { ErrorRequestHandler, Response } from 'express';
import { OAuthError, httpStatusOf } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { isStoreUnavailable } from '@platform/stores';
import { BodyError } from './form-body';

export function sendOAuthError(res: Response, err: OAuthError): void {
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
  res.status(err.httpStatus).json(err.toBody());
}

/**
 * Last-resort handler: body-parser failures (too large, malformed) become `invalid_request` with their
 * own 4xx status; anything unexpected is logged and answered 500 `server_error` without details.
 */
export function oauthErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof OAuthError) return sendOAuthError(res, err);
    // RFC 6749 §5.2: error answers are not to be cached, whatever produced them.
    res.setHeader('Cache-Control', 'no-store');
    const status = httpStatusOf(err);
    if (status < 500) {
      const description = status === 413 ? 'request body too large' : err instanceof BodyError ? err.message : 'malformed request';
      res.status(status).json({ error: 'invalid_request', error_description: description });
      return;
    }
    if (isStoreUnavailable(err)) {
      // MongoDB has no primary (or cannot be reached): an outage to retry after, not a server bug.
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'store unavailable');
      res.setHeader('Retry-After', '1');
      res.status(503).json({ error: 'temporarily_unavailable', error_description: 'the authorization server store is temporarily unavailable' });
      return;
    }
    logger.error({ err }, 'unhandled error');
    res.status(500).json({ error: 'server_error', error_description: 'internal error' });
  };
}
