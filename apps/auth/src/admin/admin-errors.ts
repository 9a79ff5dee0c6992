import type { ServerResponse } from 'node:http';
import { sendNoStoreJson } from '../http/no-store-json';

/**
 * An answer of the administration API in the OAuth JSON error shape (`{error, error_description}`,
 * no-store). 404 `not_found` and 409 `conflict` are this API's own codes, next to the RFC 6749/6750 ones.
 */
export class AdminError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${error}: ${description}`);
    this.name = 'AdminError';
  }
}

export const notFound = (what: string) => new AdminError(404, 'not_found', `no such ${what}`);
export const conflict = (description: string) => new AdminError(409, 'conflict', description);
export const invalidRequest = (description: string) => new AdminError(400, 'invalid_request', description);

/** A zod failure as `invalid_request`, naming the first offending field (never echoing its value). */
export function invalidInput(err: { issues: readonly ValidationIssue[] }): AdminError {
  const issue = err.issues[0];
  const field = issue?.path.map(String).join('.') || 'body';
  return invalidRequest(`${field}: ${issue?.message ?? 'invalid'}`);
}

/** A zod issue, of the auth contract's schemas (zod/v4) and of the app's own. */
interface ValidationIssue {
  path: readonly PropertyKey[];
  message: string;
}

export function sendAdminError(res: ServerResponse, err: AdminError): void {
  sendNoStoreJson(res, err.status, { error: err.error, error_description: err.description }, err.headers);
}
