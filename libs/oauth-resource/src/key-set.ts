import http from 'node:http';
import https from 'node:https';
import { createLocalJWKSet, createRemoteJWKSet, errors as joseErrors, type JWTVerifyGetKey } from 'jose';

/**
 * The authorization server's signing keys could not be had (its JWKS did not answer, or answered
 * something that is not a key set) and none cached fits the token. The token was not judged: it
 * may be perfectly good, so this is a 503 for the caller to retry, never a 401 that would make a
 * client throw its credential away.
 */
export class KeySetUnavailableError extends Error {
  readonly status = 503 as const;
  readonly error = 'temporarily_unavailable' as const;
  /** `Retry-After` (seconds): a resource server has nothing better to offer. */
  readonly headers: Record<string, string> = { 'Retry-After': '1' };

  constructor(
    readonly description: string,
    options?: { cause?: unknown },
  ) {
    super(description, options);
    this.name = 'KeySetUnavailableError';
  }

  toBody(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

export interface RemoteKeySetOptions {
  /** Minimum time between refetches triggered by an unknown `kid`. */
  cooldownMs: number;
  /** Bound on one JWKS fetch. */
  timeoutMs: number;
  /** After this long the key set is refetched before use (if the fetch fails, the old set is still used). */
  maxAgeMs: number;
}

/**
 * Errors about the token's header measured against a key set that was had: no key with its `kid`
 * (and a refetch is cooling down, or the fresh set has none either), several, or an algorithm the
 * set cannot serve. Anything else the resolver throws comes from fetching the set.
 */
function isVerdictOnToken(err: unknown): boolean {
  return (
    err instanceof joseErrors.JWKSNoMatchingKey ||
    err instanceof joseErrors.JWKSMultipleMatchingKeys ||
    err instanceof joseErrors.JOSENotSupported
  );
}

/**
 * jose's remote JWKS (cached, refetched on an unknown `kid` at most once per cooldown), with two
 * changes for a resource server that must keep working while auth is down:
 * - a failed fetch is a `KeySetUnavailableError`, not an error the caller would take for a bad token;
 * - when the refetch of an aged set fails, the keys already held still verify the tokens they fit.
 */
export function remoteKeySet(url: URL, options: RemoteKeySetOptions): JWTVerifyGetKey {
  // Fetches are rare (an unknown kid, an aged set); a fresh connection each time cannot meet a
  // pooled socket that a restarted auth already closed.
  const agent =
    url.protocol === 'https:' ? new https.Agent({ keepAlive: false }) : new http.Agent({ keepAlive: false });
  const remote = createRemoteJWKSet(url, {
    agent,
    cooldownDuration: options.cooldownMs,
    cacheMaxAge: options.maxAgeMs,
    timeoutDuration: options.timeoutMs,
  });
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (err) {
      if (isVerdictOnToken(err)) throw err;
      const held = remote.jwks();
      if (held) {
        try {
          return await createLocalJWKSet(held)(header, token);
        } catch (heldErr) {
          if (!(heldErr instanceof joseErrors.JWKSNoMatchingKey)) throw heldErr;
        }
      }
      // The description reaches clients: it names no internal address (the cause keeps the detail).
      throw new KeySetUnavailableError(
        held
          ? 'no cached signing key fits the token and the key set cannot be fetched now'
          : 'the signing keys cannot be fetched now',
        { cause: err },
      );
    }
  };
}
