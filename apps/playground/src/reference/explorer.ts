import { createGraphiQLFetcher, type Fetcher, type FetcherParams } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { getOperationAST, Kind, parse, type ExecutionResult, type OperationDefinitionNode } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { storedAccessToken } from '../session';

/**
 * GraphiQL for the gateway's `/graphql` (bundled into our own asset, nothing loaded from elsewhere).
 * Queries and mutations go over HTTP with the Headers pane's headers; subscriptions go over graphql-ws
 * on the same path, with the Headers pane's credentials as the `connection_init` payload (as the
 * gateway expects them there). The signed-in playground session's token is offered as the
 * Authorization header; any other token can be pasted in its place. Headers are not persisted.
 */
const httpUrl = `${location.origin}/graphql`;
const socketUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
const http = createGraphiQLFetcher({ url: httpUrl });

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
  return events as unknown as AsyncIterable<ExecutionResult>;
};

const token = storedAccessToken();
const defaultQuery = `# Queries and mutations run over HTTP, subscriptions over graphql-ws.
# Sign in on the playground (/) in this tab, or paste a token in Headers below.
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
    defaultHeaders: JSON.stringify(
      token ? { Authorization: `Bearer ${token}` } : { Authorization: 'Bearer <paste an access token>' },
      null,
      2,
    ),
    defaultEditorToolsVisibility: 'headers',
    shouldPersistHeaders: false,
    isHeadersEditorEnabled: true,
  }),
);
