import type { Request } from 'express';

/**
 * The client's IP as Express resolves it under `trust proxy` (`TRUST_PROXY`): the nearest
 * `X-Forwarded-For` entry not set by a trusted hop, or the socket's peer when none is trusted.
 * Anonymous callers, and requests refused for their credentials, are limited by it.
 */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
