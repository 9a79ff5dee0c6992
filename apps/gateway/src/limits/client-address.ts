import type { IncomingMessage } from 'node:http';
import express, { type Request } from 'express';
import { proxyTrust } from './trusted-proxies';

/**
 * The client's IP as Express resolves it under `trust proxy` (`TRUSTED_PROXIES`, trusted-proxies.ts):
 * the nearest `X-Forwarded-For` entry not set by a trusted hop, or the socket's peer when none is
 * trusted (the default). Anonymous callers, and requests refused for their credentials, are limited
 * by it, and the services get it in the signed identity (`clientAddress`).
 */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * The same for WebSocket upgrade requests, which never pass through Express: the upgrade request
 * is read through Express's own request (its `ip` getter, `trust proxy` compiled by Express from
 * the same `TRUSTED_PROXIES` value), so an upgrade and an HTTP request from one client resolve alike.
 */
export function upgradeClientAddress(trustedProxies: string): (req: IncomingMessage) => string {
  const app = express();
  app.set('trust proxy', proxyTrust(trustedProxies));
  return (req) =>
    clientAddress(
      Object.create(app.request, {
        headers: { value: req.headers },
        socket: { value: req.socket },
      }) as Request,
    );
}
