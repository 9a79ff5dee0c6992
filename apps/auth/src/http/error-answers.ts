import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import { httpStatusOf } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { isStoreUnavailable } from '@platform/stores';
import { PasswordHashBusy } from '../crypto/hash-slots';
import { countOAuthError } from '../oauth/oauth-metrics';
import { OAuthError } from '../oauth/oauth-error';
import { BodyError } from './form-body';
import { sendNoStoreJson } from './no-store-json';

function sendOAuthError(res: ServerResponse, err: OAuthError): void {
  sendNoStoreJson(res, err.httpStatus, err.toBody(), err.headers);
}

/**
 * The answer to anything a handler threw. Body failures (too large, malformed) become `invalid_request`
 * with their own 4xx status; a store outage is 503 `temporarily_unavailable`; anything unexpected is
 * logged and answered 500 `server_error` without details. Every error answer is no-store (RFC 6749 §5.2).
 */
export function answerError(logger: Logger, err: unknown, res: ServerResponse): void {
  if (res.headersSent) return;
  // Every error answer of the OAuth endpoints is counted by its code (auth_token_errors_total).
  const send = (
    status: number,
    body: { error: string; error_description: string },
    headers?: Record<string, string>,
  ) => {
    countOAuthError(res.req.url, body.error);
    sendNoStoreJson(res, status, body, headers);
  };
  if (err instanceof OAuthError) {
    countOAuthError(res.req.url, err.error);
    return sendOAuthError(res, err);
  }
  const status = httpStatusOf(err);
  if (status < 500) {
    const description =
      status === 413 ? 'request body too large' : err instanceof BodyError ? err.message : 'malformed request';
    send(status, { error: 'invalid_request', error_description: description });
    return;
  }
  if (err instanceof PasswordHashBusy) {
    // Every password-hash slot of this replica is taken and its queue is full: a load peak, not a bug.
    send(
      503,
      { error: 'temporarily_unavailable', error_description: 'too many password checks in progress; retry shortly' },
      { 'Retry-After': '1' },
    );
    return;
  }
  if (isStoreUnavailable(err)) {
    // MongoDB has no primary (or cannot be reached): an outage to retry after, not a server bug.
    logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'store unavailable');
    send(
      503,
      {
        error: 'temporarily_unavailable',
        error_description: 'the authorization server store is temporarily unavailable',
      },
      { 'Retry-After': '1' },
    );
    return;
  }
  logger.error({ err }, 'unhandled error');
  send(500, { error: 'server_error', error_description: 'internal error' });
}

/** Express's last-resort handler: `answerError`. */
export function oauthErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => answerError(logger, err, res);
}
