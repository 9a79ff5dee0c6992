/** `extensions.code` values of top-level GraphQL errors (the content API leaves their shape open). */
export const GraphQLErrorCode = {
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  RATE_LIMITED: 'RATE_LIMITED',
  QUERY_TOO_DEEP: 'QUERY_TOO_DEEP',
  QUERY_TOO_COMPLEX: 'QUERY_TOO_COMPLEX',
  UPSTREAM_UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
} as const;
export type GraphQLErrorCode = (typeof GraphQLErrorCode)[keyof typeof GraphQLErrorCode];

/** Mutation payload failure entry (the GraphQL schema's `FieldError`). */
export interface FieldError {
  field: string;
  message: string;
  code: string | null;
}
