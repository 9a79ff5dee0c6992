import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import type { Logger } from '@platform/logger';
import { nonCanonicalPath } from './canonical-path';

export interface UpgradeRoutes {
  graphql: WebSocketServer;
  /** The speech edge's WebSocket (stream-input); false when the path is not its own. */
  speech?: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  /** True (the socket answered) when the gateway takes no new connections: it is shutting down. */
  refuse?: (socket: Duplex, url?: string) => boolean;
  logger: Logger;
}

/** WebSocket upgrades: `/graphql` (graphql-ws, served here), the speech edge, nothing else. */
export function routeUpgrades(server: Server, routes: UpgradeRoutes): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (routes.refuse?.(socket, req.url)) return;
    // As for HTTP (path-guard.ts): routed only by a path no parser would resolve differently.
    if (nonCanonicalPath(req.url ?? '/')) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://gateway').pathname;
    } catch {
      path = '';
    }
    if (path === '/graphql') {
      routes.graphql.handleUpgrade(req, socket, head, (ws) => routes.graphql.emit('connection', ws, req));
      return;
    }
    try {
      if (routes.speech?.(req, socket, head)) return;
    } catch (err) {
      routes.logger.error({ err }, 'speech upgrade failed');
    }
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
}
