import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export interface Collected<T> {
  items: T[];
  errors: unknown[];
  completed: boolean;
  dispose: () => void;
}

/**
 * A graphql-ws client as users run it, authenticating in connection_init. `forwardedFor`: the client
 * address a trusted proxy would report (the gateway must trust loopback: `TRUSTED_PROXIES`).
 */
export function wsClient(
  gatewayUrl: string,
  connectionParams: Record<string, unknown> = {},
  options: { forwardedFor?: string } = {},
): Client {
  const { forwardedFor } = options;
  return createClient({
    url: `${gatewayUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: forwardedFor
      ? class extends WebSocket {
          constructor(url: string, protocols?: string | string[]) {
            super(url, protocols, { headers: { 'x-forwarded-for': forwardedFor } });
          }
        }
      : WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
}

/** Connects `client` (lazy until now): 'connected' once acknowledged, else the close code. */
export function connection(client: Client): Promise<'connected' | { code: number; reason: string }> {
  return new Promise((resolve) => {
    client.on('connected', () => resolve('connected'));
    client.on('closed', (event) => {
      const { code, reason } = event as { code: number; reason: string };
      resolve({ code, reason });
    });
    // A subscription makes a lazy client connect; its outcome is not what is awaited here.
    client.subscribe(
      { query: 'subscription { onPostCreated { id } }' },
      { next: () => undefined, error: () => undefined, complete: () => undefined },
    );
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
