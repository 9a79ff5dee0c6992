import type { ErrorRequestHandler, Response } from 'express';
import { SpeechError, httpStatusOf } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { isStoreUnavailable } from '@platform/stores';

export const badRequest = (message: string) => new SpeechError(400, 'bad_request', message);

/** Answers in the speech error shape `{detail: {status, message}}`. */
export function sendSpeechError(res: Response, err: SpeechError): void {
  if (res.headersSent) {
    // Audio already flowing: the only honest signal left is an incomplete response.
    res.destroy();
    return;
  }
  if (err.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(err.retryAfterSeconds));
  res.status(err.httpStatus).json(err.toBody());
}

/**
 * Any error as the speech error the client gets; null for a bug. Body-parser's errors keep the
 * meaning docs/speech.md gives them (too large: 413 `text_too_long`; not JSON: 400 `bad_request`),
 * a speech database outage is a 503 the client may retry.
 */
function speechErrorOf(err: unknown): SpeechError | null {
  if (err instanceof SpeechError) return err;
  const status = httpStatusOf(err);
  if (status === 413) return new SpeechError(413, 'text_too_long', 'request body is too large');
  if (status < 500) return badRequest('request body must be valid JSON');
  if (isStoreUnavailable(err))
    return new SpeechError(503, 'error', 'the speech store is temporarily unavailable; try again');
  return null;
}

/**
 * The last stop of every speech router (Express 5 hands async handlers' rejections here): known
 * errors in the interface's shape (the speech shape unless `send` says otherwise), anything unexpected logged and answered 500 without internals.
 */
export function speechErrorHandler(
  logger: Logger,
  /** The interface's error shape (OpenAI's for `/v1/audio`, speech/openai). */
  send: (res: Response, err: SpeechError) => void = sendSpeechError,
): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    const known = speechErrorOf(err);
    if (!known) logger.error({ err }, 'speech request failed');
    send(res, known ?? new SpeechError(500, 'error', 'internal server error'));
  };
}
