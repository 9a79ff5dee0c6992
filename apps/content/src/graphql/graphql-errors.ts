import { GraphQLError } from 'graphql';
import { GraphQLErrorCode, type FieldError } from '@platform/errors';
import { DomainError } from '../domain/domain-errors';

/** Top-level GraphQL errors carry `extensions.code` (libs/errors GraphQLErrorCode). */
export function gqlError(code: GraphQLErrorCode, message: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extra } });
}

export const badInput = (message: string, fieldErrors: FieldError[] = []): GraphQLError =>
  gqlError(GraphQLErrorCode.BAD_USER_INPUT, message, fieldErrors.length ? { fieldErrors } : {});

/** DomainError → FieldError entries of a mutation payload. */
function fieldErrorsOf(err: DomainError): FieldError[] {
  const code = {
    validation: 'VALIDATION_ERROR',
    not_found: 'NOT_FOUND',
    forbidden: 'FORBIDDEN',
    unauthenticated: 'UNAUTHORIZED',
    conflict: 'CONFLICT',
    unavailable: 'INTERNAL_ERROR',
  }[err.kind];
  const entries = Object.entries(err.fields);
  if (entries.length > 0) return entries.map(([field, message]) => ({ field, message, code }));
  const field =
    err.kind === 'not_found' || err.kind === 'forbidden' ? 'id' : err.kind === 'unauthenticated' ? 'auth' : 'input';
  return [{ field, message: err.message, code }];
}

/** DomainError → a top-level error, for fields without a payload (queries, comment mutations). */
export function toGraphQLError(err: unknown): unknown {
  if (!(err instanceof DomainError)) return err;
  const fieldErrors = fieldErrorsOf(err);
  switch (err.kind) {
    case 'validation':
    case 'conflict':
      return badInput(err.message, fieldErrors);
    case 'not_found':
      return gqlError(GraphQLErrorCode.NOT_FOUND, err.message);
    case 'forbidden':
      return gqlError(GraphQLErrorCode.FORBIDDEN, err.message);
    case 'unauthenticated':
      return gqlError(GraphQLErrorCode.UNAUTHENTICATED, err.message);
    case 'unavailable':
      return gqlError(GraphQLErrorCode.UPSTREAM_UNAVAILABLE, err.message);
  }
}

/**
 * A failed mutation's payload, for each payload type (UserMutationPayload, PostMutationPayload, DeleteResult):
 * the entity and the deleted id are null, as the schema's nullable fields say (GraphQL sends only the selected ones).
 */
export interface FailurePayload {
  success: false;
  message: string;
  errors: FieldError[];
  user: null;
  post: null;
  deletedId: null;
}

export function failurePayload(err: DomainError): FailurePayload {
  return { success: false, message: err.message, errors: fieldErrorsOf(err), user: null, post: null, deletedId: null };
}
