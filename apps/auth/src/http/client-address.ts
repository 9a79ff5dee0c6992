import type { IncomingMessage } from 'node:http';
import { IDENTITY_HEADER, verifyIdentity } from '@platform/identity';

/**
 * The address a request comes from, for per-address limits (sign-in failures, wrong device codes):
 * the one the gateway resolved and signed into the identity header (its socket peer, or the
 * X-Forwarded-For of a proxy it trusts), else this socket's peer. Never X-Forwarded-For itself:
 * anyone can send that header, and a rotated one would reset every per-address limit.
 */
export async function clientAddress(req: IncomingMessage, internalSecret: string): Promise<string> {
  const header = req.headers[IDENTITY_HEADER];
  if (typeof header === 'string') {
    try {
      const identity = await verifyIdentity(header, internalSecret);
      if (identity.clientAddress) return identity.clientAddress;
    } catch {
      // Not a header the gateway signed: the request is counted against its socket's peer.
    }
  }
  return req.socket.remoteAddress ?? 'unknown';
}
