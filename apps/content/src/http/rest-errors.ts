import type { CodedError, SimpleError, ValidationError } from '@platform/contracts';
import { httpStatusOf } from '@platform/errors';

/**
 * The content REST API's errors (docs/content.md, "REST /api/v1"; their shapes are the contract's
 * ValidationError, SimpleError and CodedError):
 * - 400 `{errors: {<property path>: <message>}}` for validation,
 * - 403/404 `{error: string}`,
 * - anything else `{error: {code: <integer status>, message}}`.
 */

export class ContentValidationError extends Error {
  constructor(readonly errors: Record<string, string>) {
    super(
      Object.entries(errors)
        .map(([k, v]) => `${k}: ${v}`)
        .join('; '),
    );
    this.name = 'ContentValidationError';
  }
}

export class ContentHttpError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
    this.name = 'ContentHttpError';
  }
}

/** Maps any error thrown under `/api/` to its REST status and body. */
export function contentErrorResponse(err: unknown): {
  status: number;
  body: ValidationError | SimpleError | CodedError;
} {
  if (err instanceof ContentValidationError) return { status: 400, body: { errors: err.errors } };
  if (err instanceof ContentHttpError) {
    if (err.httpStatus === 403 || err.httpStatus === 404)
      return { status: err.httpStatus, body: { error: err.message } };
    return { status: err.httpStatus, body: { error: { code: err.httpStatus, message: err.message } } };
  }
  const status = httpStatusOf(err);
  const message = status >= 500 ? 'Internal server error' : errorMessage(err);
  return { status, body: { error: { code: status, message } } };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : 'Request failed';
}
