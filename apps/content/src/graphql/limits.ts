import { buildSchema, GraphQLError, type DocumentNode, type GraphQLSchema } from 'graphql';
import { measureQuery, queryLimitError, typeDefs } from '@platform/graphql-schema';

/**
 * Depth, repeated-selection and cost limits of one request, checked after parsing and validation and
 * before execution (with the request's variables). The cost model is libs/graphql-schema's
 * (`measureQuery`): counts and text searches are priced for the index walks they cause, so a
 * request cannot buy thousands of them for a few points.
 */

/** Default budget per request (`GRAPHQL_MAX_COST`). */
const MAX_COST = 5000;

// The SDL alone decides which fields are connections; directives do not change types.
let sdlSchema: GraphQLSchema | undefined;

/** Returns the first limit the operation breaks, with the variables it will run with. */
export function checkLimits(
  document: DocumentNode,
  variables: Record<string, unknown> = {},
  options: { schema?: GraphQLSchema; maxCost?: number | undefined } = {},
): GraphQLError | null {
  const schema = options.schema ?? (sdlSchema ??= buildSchema(typeDefs));
  const error = queryLimitError(measureQuery(schema, document, variables), options.maxCost ?? MAX_COST);
  if (!error) return null;
  return new GraphQLError(error.message, { extensions: { ...error.extensions, http: { status: 400 } } });
}
