import { createGraphiQLFetcher, type Fetcher, type FetcherParams } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { getOperationAST, parse, type ExecutionResult } from 'graphql';
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
    Object.entries(headers).filter(([name, value]) => ['authorization', 'dpop', 'xi-api-key'].includes(name.toLowerCase()) && typeof value === 'string'),
  );
  const key = JSON.stringify(credentials);
  if (socket?.key !== key) {
    void socket?.client.dispose();
    socket = { key, client: createClient({ url: socketUrl, connectionParams: credentials, lazy: true }) };
  }
  return socket.client;
}

/** From the query text itself: the `documentAST` GraphiQL hands over can be the editor's previous one. */
function isSubscription(params: FetcherParams): boolean {
  try {
    return getOperationAST(parse(params.query), params.operationName ?? undefined)?.operation === 'subscription';
  } catch {
    return false;
  }
}

const fetcher: Fetcher = (params, opts) => {
  if (!isSubscription(params)) return http(params, opts);
  const events = socketFor(opts?.headers ?? {}).iterate({
    query: params.query,
    operationName: params.operationName ?? null,
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
    defaultHeaders: JSON.stringify(token ? { Authorization: `Bearer ${token}` } : { Authorization: 'Bearer <paste an access token>' }, null, 2),
    defaultEditorToolsVisibility: 'headers',
    shouldPersistHeaders: false,
    isHeadersEditorEnabled: true,
  }),
);
