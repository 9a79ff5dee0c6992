import { jsonContent, schemaRef, type JsonObject } from '../../speech/json-helpers';
import { contentToken } from '../security';

/** GraphQL over HTTP answers in either media type, as the request's Accept asks (GraphQL over HTTP, §6.4). */
const graphqlAnswer = (description: string): JsonObject => ({
  description,
  content: {
    'application/json': { schema: schemaRef('GraphQLResponse') },
    'application/graphql-response+json': { schema: schemaRef('GraphQLResponse') },
  },
});

const answers: JsonObject = {
  '200': graphqlAnswer(
    'The operation ran: `data`, and `errors` for the fields that failed (each with `extensions.code`).',
  ),
  '400': graphqlAnswer(
    'The request is not a GraphQL request (JSON that does not hold together, nested deeper than 32, naming `query` twice), or the document does not parse or validate.',
  ),
  '401': graphqlAnswer('An invalid or expired access token (`UNAUTHENTICATED`); no token at all runs as anonymous.'),
  '403': graphqlAnswer(
    'The token lacks the scope (`FORBIDDEN`): `content:write` for a mutation, a batch or a persisted query sent by its hash alone, `content:read` otherwise.',
  ),
  '405': graphqlAnswer('A method other than GET and POST, or a mutation over GET.'),
  '413': graphqlAnswer('The body is over the GraphQL body limit.'),
  '415': graphqlAnswer(
    'The body is not UTF-8 JSON: `Content-Type` must be `application/json`, with `charset=utf-8` or none.',
  ),
  '429': {
    ...graphqlAnswer('A rate limit (`RATE_LIMITED`).'),
    headers: { 'Retry-After': { schema: { type: 'integer', minimum: 0 } } },
  },
  '503': graphqlAnswer('A dependency is temporarily unavailable (`UPSTREAM_UNAVAILABLE`).'),
};

const description =
  'The content API’s GraphQL endpoint (GraphQL over HTTP). Its schema is the SDL in `libs/graphql-schema/src/sdl.ts` (docs/content.md, "GraphQL /graphql"); ' +
  'a browser opening `/graphql` gets the GraphiQL explorer. Subscriptions are served over WebSocket at the same path (graphql-ws; see `/asyncapi.json`). ' +
  'Queries need `content:read`, mutations `content:write`; without a token the caller is anonymous and sees only public data.';

/** `/graphql` as one operation per method: what OpenAPI can say about it; the SDL says the rest. */
export const graphqlPaths: JsonObject = {
  '/graphql': {
    post: {
      tags: ['GraphQL'],
      operationId: 'graphqlPost',
      summary: 'Run a GraphQL query or mutation',
      description,
      security: [...contentToken('content:read'), ...contentToken('content:write'), {}],
      externalDocs: { description: 'GraphQL over HTTP', url: 'https://graphql.github.io/graphql-over-http/draft/' },
      requestBody: {
        required: true,
        content: jsonContent(schemaRef('GraphQLRequest'), {
          query: 'query { posts(first: 2) { edges { node { id title } } } }',
        }),
      },
      responses: answers,
    },
    get: {
      tags: ['GraphQL'],
      operationId: 'graphqlGet',
      summary: 'Run a GraphQL query (not a mutation) given in the query string',
      description: `${description} A GET must carry \`apollo-require-preflight: true\` (or another header a browser form cannot send): Apollo Server's CSRF prevention.`,
      security: [...contentToken('content:read'), {}],
      parameters: [
        { name: 'query', in: 'query', required: true, schema: { type: 'string' } },
        { name: 'operationName', in: 'query', required: false, schema: { type: 'string' } },
        {
          name: 'variables',
          in: 'query',
          required: false,
          description: 'A JSON object, encoded.',
          schema: { type: 'string' },
        },
        {
          name: 'extensions',
          in: 'query',
          required: false,
          description: 'A JSON object, encoded.',
          schema: { type: 'string' },
        },
        {
          name: 'apollo-require-preflight',
          in: 'header',
          required: true,
          description: 'Any value; see above (a browser asking for the explorer needs none).',
          schema: { type: 'string', minLength: 1 },
        },
      ],
      responses: {
        ...answers,
        '200': {
          ...graphqlAnswer('The query ran; or, for a browser (`Accept: text/html`), the GraphiQL explorer.'),
          content: { ...(graphqlAnswer('').content as JsonObject), 'text/html': { schema: { type: 'string' } } },
        },
      },
    },
  },
};

/** The request and response of GraphQL over HTTP. */
export const graphqlSchemas: JsonObject = {
  GraphQLRequest: {
    type: 'object',
    required: ['query'],
    properties: {
      query: { type: 'string' },
      operationName: { type: ['string', 'null'] },
      variables: { type: ['object', 'null'] },
      extensions: { type: ['object', 'null'] },
    },
  },
  GraphQLResponse: {
    type: 'object',
    properties: {
      data: { type: ['object', 'null'] },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['message'],
          properties: {
            message: { type: 'string' },
            path: { type: 'array', items: { type: ['string', 'integer'] } },
            locations: { type: 'array' },
            extensions: { type: 'object', properties: { code: { type: 'string' } } },
          },
        },
      },
      extensions: { type: 'object' },
    },
  },
};
