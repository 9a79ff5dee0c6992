/**
 * What the gateway needs from the resource-server library (libs/oauth-resource): verify an
 * access token locally (signature from the JWKS cache, issuer, audience, expiry, revocation) and,
 * for DPoP, the proof (htm, htu, freshness, replay, key binding `cnf.jkt`).
 */
interface AccessTokenInput {
  token: string;
  scheme: 'Bearer' | 'DPoP';
  proof?: string;
  /** HTTP method and URL of the request as the client addressed it (DPoP `htm`/`htu`). */
  method: string;
  url: string;
  /** Any one of these must be in the token's `aud`. */
  audiences: string[];
  /** `deferred`: the caller checks revocation itself (limits/admission.ts); default `check`. */
  revocation?: 'check' | 'deferred';
}

interface VerifiedAccessToken {
  sub: string;
  scope: string;
  clientId?: string;
  roles: string[];
  plan?: string;
  /** The token's id: what auth revokes (`auth:revoked:jti:<jti>`, channel `auth:revocations`). */
  jti: string;
  /** Unix seconds. */
  exp: number;
}

/** A token the resource server must refuse; `error` is the RFC 6750 / RFC 9449 code. */
export class TokenRejectedError extends Error {
  constructor(
    readonly error: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce' | 'invalid_request',
    readonly description: string,
    /** Headers the client needs besides the challenge (`DPoP-Nonce`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(`${error}: ${description}`);
    this.name = 'TokenRejectedError';
  }
}

export type AccessTokenVerifier = (input: AccessTokenInput) => Promise<VerifiedAccessToken>;
