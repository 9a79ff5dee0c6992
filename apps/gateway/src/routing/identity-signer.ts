import { signIdentity, type Identity } from '@platform/identity';

const REUSE_MS = 30_000;
const MAX_ENTRIES = 10_000;

/**
 * Signs the `x-platform-identity` header, reusing a signature for the same identity for 30 s
 * (the header is valid for 60 s). Signing goes through WebCrypto's thread pool; under load that
 * hop cost more than the rest of the gateway's work per request.
 */
export function createIdentitySigner(secret: string, now: () => number = Date.now) {
  const cache = new Map<string, { header: string; signedAt: number }>();
  return async function sign(identity: Identity): Promise<string> {
    const key = JSON.stringify([
      identity.sub ?? '',
      identity.roles,
      identity.scope,
      identity.method,
      identity.clientId ?? '',
      identity.plan ?? '',
      identity.clientAddress ?? '',
    ]);
    const hit = cache.get(key);
    if (hit && now() - hit.signedAt < REUSE_MS) return hit.header;
    const header = await signIdentity(identity, secret);
    cache.delete(key);
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, { header, signedAt: now() });
    return header;
  };
}
