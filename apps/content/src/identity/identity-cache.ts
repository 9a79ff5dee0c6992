import type { Identity } from '@platform/identity';

/**
 * Verified identity headers, by their exact bytes, for as long as the header itself is valid.
 * A gateway signs one header per caller and reuses it for its short lifetime, so most requests
 * carry a header already verified; the same bytes verify to the same identity until the token
 * expires (`exp`, or `iat` + the verifier's maximum age, whichever comes first), and the cache
 * forgets it at that instant. Failures are not cached. Bounded: the oldest entry goes first.
 */
interface IdentityCache {
  get(header: string, now: number): Identity | undefined;
  /** Remembers a header that just verified; `maxAgeSeconds` is the verifier's maximum token age. */
  put(header: string, identity: Identity, maxAgeSeconds: number, now: number): void;
}

/** `exp`/`iat` (seconds) of a compact JWS whose signature was already verified, or null. */
function lifetimeClaims(header: string): { exp?: number; iat?: number } | null {
  const payload = header.split('.')[1];
  if (payload === undefined) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown; iat?: unknown };
    return {
      ...(typeof claims.exp === 'number' ? { exp: claims.exp } : {}),
      ...(typeof claims.iat === 'number' ? { iat: claims.iat } : {}),
    };
  } catch {
    return null;
  }
}

export function createIdentityCache(maxEntries = 10_000): IdentityCache {
  const entries = new Map<string, { identity: Identity; until: number }>();
  return {
    get(header, now) {
      const entry = entries.get(header);
      if (!entry) return undefined;
      if (now < entry.until) return entry.identity;
      entries.delete(header);
      return undefined;
    },
    put(header, identity, maxAgeSeconds, now) {
      const claims = lifetimeClaims(header);
      // Without both bounds the header's validity cannot be bounded here: verify it every time.
      if (claims?.exp === undefined || claims.iat === undefined) return;
      const until = Math.min(claims.exp, claims.iat + maxAgeSeconds) * 1000;
      if (until <= now) return;
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(header, { identity, until });
    },
  };
}
