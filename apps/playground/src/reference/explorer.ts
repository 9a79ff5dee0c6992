import { createGraphiQLFetcher, type Fetcher, type FetcherParams } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import {
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  type ExecutionResult,
  type OperationDefinitionNode,
} from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { createPacer } from '../pacing';
import { storedAccessToken } from '../session';

/**
 * GraphiQL for the gateway's `/graphql` (bundled into our own asset, nothing loaded from elsewhere).
 * Queries and mutations go over HTTP with the Headers pane's headers; subscriptions go over graphql-ws
 * on the same path, with the Headers pane's credentials as the `connection_init` payload (as the
 * gateway expects them there). Without headers it works anonymously (the schema, public posts and
 * their events); the playground's session in this tab (sessionStorage, session.ts) is offered as the
 * Authorization header, and any other token can be pasted instead. Headers are not persisted.
 */
const httpUrl = `${location.origin}/graphql`;
const socketUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
// Paced to the account's plan like the playground's own calls (pacing.ts): the schema's introspection
// and a run right after it must not be refused with 429, and a 429 anyway is waited out once.
const pacer = createPacer();
const http = createGraphiQLFetcher({ url: httpUrl, fetch: (input, init) => pacer.send(() => fetch(input, init)) });

/** One graphql-ws client per set of credentials, so a pasted token takes effect at the next run. */
let socket: { key: string; client: Client } | null = null;
function socketFor(headers: Record<string, unknown>): Client {
  const credentials = Object.fromEntries(
    Object.entries(headers).filter(
      ([name, value]) =>
        ['authorization', 'dpop', 'xi-api-key'].includes(name.toLowerCase()) && typeof value === 'string',
    ),
  );
  const key = JSON.stringify(credentials);
  if (socket?.key !== key) {
    void socket?.client.dispose();
    socket = { key, client: createClient({ url: socketUrl, connectionParams: credentials, lazy: true }) };
  }
  return socket.client;
}

/**
 * The operation to run, read from the query text itself. GraphiQL works out the operation name from its
 * editor a moment after each edit, so a run right after an edit can carry the previous text's name
 * (`Unknown operation named "Posts"`): a document with one operation runs that one whatever name came.
 */
function operationOf(params: FetcherParams): { operationName: string | null; subscription: boolean } {
  const requested = params.operationName ?? null;
  let document;
  try {
    document = parse(params.query);
  } catch {
    return { operationName: requested, subscription: false };
  }
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const named = operations.find((op) => op.name?.value === requested);
  const operation =
    requested === null || named
      ? getOperationAST(document, requested)
      : operations.length === 1
        ? operations[0]!
        : null;
  return {
    operationName: operation ? (operation.name?.value ?? null) : requested,
    subscription: operation?.operation === 'subscription',
  };
}

const fetcher: Fetcher = (params, opts) => {
  const { operationName, subscription } = operationOf(params);
  if (!subscription) return http({ ...params, operationName }, opts);
  const events = socketFor(opts?.headers ?? {}).iterate({
    query: params.query,
    operationName,
    variables: (params.variables as Record<string, unknown> | undefined) ?? null,
  });
  // graphql-ws yields results as JSON (errors as plain objects), which is what GraphiQL displays; its
  // type names the in-process ExecutionResult, whose GraphQLError instances only differ in methods.
  return readableFailures(events as unknown as AsyncIterable<ExecutionResult>);
};

/**
 * graphql-ws ends a failed subscription by throwing the socket's CloseEvent (a refused token closes
 * with 4401) or the server's error list; GraphiQL would show the event as `{"isTrusted":true}`. The
 * failure becomes an `errors` result that says what happened.
 */
async function* readableFailures(events: AsyncIterable<ExecutionResult>): AsyncIterable<ExecutionResult> {
  try {
    yield* events;
  } catch (err) {
    yield { errors: failureMessages(err).map((message) => new GraphQLError(message)) };
  }
}

function failureMessages(err: unknown): string[] {
  if (err instanceof CloseEvent)
    return [
      `The GraphQL WebSocket closed (${err.code}${err.reason ? `: ${err.reason}` : ''})` +
        (err.code === 4401
          ? ': the Authorization header holds no valid token; remove it to subscribe anonymously.'
          : '.'),
    ];
  if (Array.isArray(err))
    return err.map((e) =>
      typeof e === 'object' && e !== null && 'message' in e ? String(e.message) : JSON.stringify(e),
    );
  if (err instanceof Error) return [err.message];
  if (err instanceof Event) return [`The GraphQL WebSocket failed (${err.type}): is the gateway reachable?`];
  return [String(err)];
}

const token = storedAccessToken();
const defaultQuery = `# Queries and mutations run over HTTP, subscriptions over graphql-ws.
# Public posts and their events need no sign-in. For your own data (\`me\`, writing posts), sign in
# on the playground (/) in this tab, or put {"Authorization": "Bearer <token>"} in Headers below.
query Posts {
  posts(first: 5) {
    edges { node { id title author { name } } }
  }
}

subscription NewPosts {
  onPostCreated { id title author { name } }
}
`;

createRoot(document.getElementById('explorer')!).render(
  createElement(GraphiQL, {
    fetcher,
    defaultQuery,
    // No placeholder credential: a header that is not a token would make every request a 401.
    defaultHeaders: token ? JSON.stringify({ Authorization: `Bearer ${token}` }, null, 2) : '',
    defaultEditorToolsVisibility: 'headers',
    shouldPersistHeaders: false,
    isHeadersEditorEnabled: true,
  }),
);
