import type { Server } from 'node:http';

/**
 * How long a kept-alive connection may sit idle before the server closes it: longer than the idle
 * timeouts of the load balancers and HTTP clients in front of us (60 s for most cloud balancers).
 * Node's default of 5 s lets the server close a connection at the moment a client reuses it, and
 * the client's request then fails with ECONNRESET (a 502 at a balancer): the side that keeps a
 * connection idle the longest must be the server.
 */
export const IDLE_CONNECTION_MS = 65_000;

export function keepIdleConnections(server: Server): void {
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
  // Node requires the headers timeout to exceed the keep-alive timeout, or a reused connection's
  // next request can be cut off while its headers arrive.
  server.headersTimeout = IDLE_CONNECTION_MS + 1_000;
}
