import type { Redis } from 'ioredis';
import {
  createTokenVerifier,
  KeySetUnavailableError,
  ResourceAuthError,
  type TokenVerifier,
} from '@platform/oauth-resource';
import { TokenRejectedError, type AccessTokenVerifier } from './access-token-verifier';
import { AuthUnavailableError } from './api-key-lookup';

interface OAuthResourceOptions {
  publicUrl: string;
  authUrl: string;
  redis: Redis;
  /** Bound on one fetch of auth's JWKS. */
  jwksTimeoutMs: number;
}

/**
 * Adapts libs/oauth-resource (JWKS cache, revocation list in Redis, DPoP proofs with replay
 * protection) to the gateway's verifier. The library fixes audiences per verifier, so one is
 * built per audience set (speech, content) and reused. A token that could not be judged because
 * auth's JWKS could not be fetched is an outage (`AuthUnavailableError`, 503), not a rejection.
 */
export function oauthResourceVerifier(options: OAuthResourceOptions): AccessTokenVerifier {
  const issuer = options.publicUrl.replace(/\/$/, '');
  const verifiers = new Map<string, TokenVerifier>();
  const verifierFor = (audiences: string[]): TokenVerifier => {
    const key = audiences.join(' ');
    let verifier = verifiers.get(key);
    if (!verifier) {
      verifier = createTokenVerifier({
        issuer,
        jwksUrl: new URL('/jwks', options.authUrl).toString(),
        audiences,
        redis: options.redis,
        realm: 'platform',
        jwksTimeoutSeconds: options.jwksTimeoutMs / 1000,
      });
      verifiers.set(key, verifier);
    }
    return verifier;
  };
  return async (input) => {
    try {
      const token = await verifierFor(input.audiences).verify(
        {
          authorization: `${input.scheme} ${input.token}`,
          ...(input.proof !== undefined ? { dpop: input.proof } : {}),
          method: input.method,
          url: input.url,
        },
        [],
        { revocation: input.revocation ?? 'check' },
      );
      const { claims } = token;
      return {
        sub: token.sub,
        scope: token.scopes.join(' '),
        ...(token.clientId ? { clientId: token.clientId } : {}),
        roles: Array.isArray(claims.roles) ? claims.roles.filter((r): r is string => typeof r === 'string') : [],
        ...(typeof claims.plan === 'string' ? { plan: claims.plan } : {}),
        jti: String(claims.jti),
        exp: typeof claims.exp === 'number' ? claims.exp : 0,
      };
    } catch (err) {
      if (err instanceof KeySetUnavailableError)
        throw new AuthUnavailableError(`auth's signing keys are unavailable: ${err.description}`);
      if (err instanceof ResourceAuthError) {
        const extra: Record<string, string> = {};
        if (err.headers['DPoP-Nonce']) extra['dpop-nonce'] = err.headers['DPoP-Nonce'];
        const code =
          err.error === 'invalid_dpop_proof' || err.error === 'use_dpop_nonce' || err.error === 'invalid_request'
            ? err.error
            : 'invalid_token';
        throw new TokenRejectedError(code, err.description, extra);
      }
      throw err;
    }
  };
}
