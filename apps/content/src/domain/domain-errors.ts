/**
 * Outcomes of the content functions that are not bugs. Each interface maps them to its own
 * shape: REST to `{errors}` / `{error}` / `{error: {code, message}}`, GraphQL to mutation
 * payloads or top-level errors with `extensions.code`.
 */
type DomainErrorKind = 'validation' | 'not_found' | 'forbidden' | 'unauthenticated' | 'conflict' | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** Property → message, for validation and conflicts on a property. */
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const validationError = (fields: Record<string, string>): DomainError =>
  new DomainError('validation', 'Validation failed', fields);
export const notFoundError = (what: string): DomainError => new DomainError('not_found', `${what} not found`);
export const forbiddenError = (message: string): DomainError => new DomainError('forbidden', message);

export function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}
