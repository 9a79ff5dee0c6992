import { ContentHttpError, ContentValidationError } from './rest-errors';
import { DomainError } from '../domain/domain-errors';

/** DomainError → the REST error of the content API's error rules (rest-error-handler.ts renders it). */
export function toRestError(err: unknown): unknown {
  if (!(err instanceof DomainError)) return err;
  switch (err.kind) {
    case 'validation':
      return new ContentValidationError(err.fields);
    case 'conflict':
      return Object.keys(err.fields).length > 0
        ? new ContentValidationError(err.fields)
        : new ContentHttpError(409, err.message);
    case 'not_found':
      return new ContentHttpError(404, err.message);
    case 'forbidden':
      return new ContentHttpError(403, err.message);
    case 'unauthenticated':
      return new ContentHttpError(401, err.message);
    case 'unavailable':
      return new ContentHttpError(503, err.message);
  }
}
