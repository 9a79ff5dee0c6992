import { getOperationAST, parse } from 'graphql';

export type OperationKind = 'query' | 'mutation' | 'subscription' | 'unknown';

const MAX_TOKENS = 20_000;

function kindOf(query: unknown, operationName: unknown): OperationKind {
  if (typeof query !== 'string' || query.length === 0) return 'unknown';
  try {
    const document = parse(query, { maxTokens: MAX_TOKENS, noLocation: true });
    const operation = getOperationAST(document, typeof operationName === 'string' ? operationName : undefined);
    return operation ? operation.operation : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The kind of a GraphQL-over-HTTP request, so the gateway can require `content:write` for
 * mutations and `content:read` otherwise. Anything it cannot parse is `unknown`: content answers
 * it with its own validation error (and `unknown` needs read scope only, which grants nothing).
 * A batch (a JSON array) is taken as a mutation without parsing any of it: content does not
 * execute batches (it answers 400), so parsing up to a megabyte of documents here would be CPU
 * spent for nothing, and the strictest kind stays safe should batching ever be turned on.
 */
export function graphqlOperationKind(body: unknown): OperationKind {
  if (Array.isArray(body)) return 'mutation';
  if (typeof body !== 'object' || body === null) return 'unknown';
  const { query, operationName } = body as { query?: unknown; operationName?: unknown };
  return kindOf(query, operationName);
}

export function graphqlOperationKindFromQueryString(query: unknown, operationName: unknown): OperationKind {
  return kindOf(query, operationName);
}
