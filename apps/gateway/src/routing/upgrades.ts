import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@platform/logger';
import { nonCanonicalPath } from './canonical-path';
import type { WebSocketRoute, WebSocketServerName } from './edge-route';
import { WEBSOCKET_ROUTES } from './edge-route-table';

/** Takes an upgrade; false when the path is not one it serves (answered 404). */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

interface UpgradeRoutes {
  /** The gateway's WebSocket servers, by the name `WEBSOCKET_ROUTES` gives them. */
  servers: Record<WebSocketServerName, UpgradeHandler>;
  /** True (the socket answered) when the gateway takes no new connections: it is shutting down. */
  refuse?: (socket: Duplex, url?: string) => boolean;
  logger: Logger;
}

function routeOf(path: string): WebSocketRoute | undefined {
  return WEBSOCKET_ROUTES.find(({ mount }) => ('at' in mount ? path === mount.at : path.startsWith(mount.under)));
}

/** WebSocket upgrades: the mounts of `WEBSOCKET_ROUTES` (edge-route-table.ts), nothing else. */
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
    const route = routeOf(path);
    try {
      if (route && routes.servers[route.upstream.local](req, socket, head)) return;
    } catch (err) {
      routes.logger.error({ err, server: route?.upstream.local }, 'websocket upgrade failed');
    }
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
}
