import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export interface Collected<T> {
  items: T[];
  errors: unknown[];
  completed: boolean;
  dispose: () => void;
}

/** A graphql-ws client as users run it, authenticating in connection_init. */
export function wsClient(gatewayUrl: string, connectionParams: Record<string, unknown> = {}): Client {
  return createClient({
    url: `${gatewayUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
}

export function collect<T>(client: Client, query: string, variables: Record<string, unknown> = {}): Collected<T> {
  const collected: Collected<T> = { items: [], errors: [], completed: false, dispose: () => undefined };
  collected.dispose = client.subscribe<T>(
    { query, variables },
    {
      next: (value) => {
        if (value.errors) collected.errors.push(...value.errors);
        if (value.data) collected.items.push(value.data as T);
      },
      // graphql-ws reports subscription errors as a list of GraphQL errors, transport errors as one value.
      error: (err) => (Array.isArray(err) ? collected.errors.push(...(err as unknown[])) : collected.errors.push(err)),
      complete: () => {
        collected.completed = true;
      },
    },
  );
  return collected;
}

/** Resolves with the close event's code once the client's socket closes (or errors). */
export function closeCode(client: Client): Promise<number> {
  return new Promise((resolve) => {
    client.on('closed', (event) => resolve((event as { code: number }).code));
  });
}
