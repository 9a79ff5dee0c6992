import type { ErrorRequestHandler, Response } from 'express';
import { SpeechError, httpStatusOf, speechErrorBody } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { isStoreUnavailable } from '@platform/stores';

export function sendSpeechError(res: Response, err: SpeechError): void {
  if (res.headersSent) {
    // Audio already flowing: the only honest signal left is an incomplete response.
    res.destroy();
    return;
  }
  res.status(err.httpStatus).json(err.toBody());
}

export const badRequest = (message: string) => new SpeechError(400, 'bad_request', message);

/**
 * Last stop for errors under the speech routes: body-parser's (malformed JSON, too large) keep
 * their 4xx status in the speech shape; anything unexpected is logged and answered 500 without
 * internals.
 */
export function speechErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (err instanceof SpeechError) {
      sendSpeechError(res, err);
      return;
    }
    const status = httpStatusOf(err);
    if (status === 413) {
      sendSpeechError(res, new SpeechError(413, 'text_too_long', 'request body is too large'));
      return;
    }
    if (status < 500) {
      sendSpeechError(res, new SpeechError(status, 'bad_request', 'request body must be valid JSON'));
      return;
    }
    if (isStoreUnavailable(err) && !res.headersSent) {
      sendSpeechError(res, new SpeechError(503, 'error', 'the speech store is temporarily unavailable; try again'));
      return;
    }
    logger.error({ err }, 'speech request failed');
    if (res.headersSent) res.destroy();
    else res.status(500).json(speechErrorBody('error', 'internal server error'));
  };
}
