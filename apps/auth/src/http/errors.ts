import type { ErrorRequestHandler, Response } from 'express';
import { OAuthError, httpStatusOf } from '@platform/errors';
import type { Logger } from '@platform/logger';

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
    const status = httpStatusOf(err);
    if (status < 500) {
      const description = status === 413 ? 'request body too large' : 'malformed request';
      res.status(status).json({ error: 'invalid_request', error_description: description });
      return;
    }
    logger.error({ err }, 'unhandled error');
    res.status(500).json({ error: 'server_error', error_description: 'internal error' });
  };
}
