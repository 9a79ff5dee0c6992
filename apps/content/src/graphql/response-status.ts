import type { ApolloServerPlugin } from '@apollo/server';
import Negotiator from 'negotiator';

const APPLICATION_JSON = 'application/json';
const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';

/**
 * The media type Apollo Server answers a single result in: its own negotiation (the same library and
 * the same order of preference), so the status chosen here always matches the body's type.
 */
function responseMediaType(accept: string | undefined): string | undefined {
  if (!accept) return APPLICATION_JSON;
  return new Negotiator({ headers: { accept } }).mediaType([APPLICATION_JSON, GRAPHQL_RESPONSE_JSON]);
}

/**
 * The request errors the GraphQL over HTTP specification names: the document does not parse, does not
 * validate, or its variables cannot be coerced (Apollo's codes; coercion is BAD_USER_INPUT before
 * execution). The platform's own refusals (QUERY_TOO_DEEP, QUERY_TOO_COMPLEX) keep their 400.
 */
const SPEC_REQUEST_ERRORS: ReadonlySet<string> = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
]);

/**
 * GraphQL over HTTP (the GraphQL Foundation's specification, "application/json" response status):
 * a well-formed request whose document fails to parse or validate, or whose variables cannot be
 * coerced, is a GraphQL response with `errors` and no `data`; answered as `application/json` it
 * SHOULD have status 200 (clients of that media type read the body of 200s only), as
 * `application/graphql-response+json` 400. Apollo Server answers 400 for both; this plugin sets 200
 * for `application/json`. Requests that are not well-formed (no query, malformed JSON) never reach
 * the plugin and keep their 4xx.
 */
export const graphqlOverHttpStatus: ApolloServerPlugin = {
  async requestDidStart({ request }) {
    const mediaType = responseMediaType(request.http?.headers.get('accept'));
    return {
      async willSendResponse({ response }) {
        if (mediaType !== APPLICATION_JSON || response.http.status !== 400 || response.body.kind !== 'single') return;
        const result = response.body.singleResult;
        const codes = (result.errors ?? []).map((error) => String(error.extensions?.code ?? ''));
        if (result.data === undefined && codes.length && codes.every((code) => SPEC_REQUEST_ERRORS.has(code)))
          response.http.status = 200;
      },
    };
  },
};
