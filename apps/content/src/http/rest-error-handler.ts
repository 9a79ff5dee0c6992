import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@platform/logger';
import { JSON_TOO_DEEP } from '@platform/service';
import { isStoreUnavailable } from '@platform/stores';
import { ContentHttpError, contentErrorResponse } from './rest-errors';

/** Last handler under `/api/`: every error becomes the content API's error shape; 5xx are logged, never leaked. */
export function restErrorHandler(logger: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const mapped = contentErrorResponse(normalize(err));
    if (mapped.status >= 500) logger.error({ err }, 'request failed');
    if (res.headersSent) return;
    res.status(mapped.status).json(mapped.body);
  };
}

/** body-parser's errors carry a `type`; give them messages a client can act on. */
function normalize(err: unknown): unknown {
  if (isStoreUnavailable(err))
    return new ContentHttpError(503, 'The content store is temporarily unavailable; retry shortly');
  if (typeof err === 'object' && err !== null && 'type' in err) {
    const type = (err as { type?: unknown }).type;
    if (type === 'entity.too.large') return new ContentHttpError(413, 'Request body too large');
    if (type === 'entity.parse.failed') return new ContentHttpError(400, 'Malformed JSON body');
    if (type === JSON_TOO_DEEP && err instanceof Error) return new ContentHttpError(400, err.message);
    if (type === 'encoding.unsupported' || type === 'charset.unsupported')
      return new ContentHttpError(415, 'Unsupported body encoding');
  }
  return err;
}
