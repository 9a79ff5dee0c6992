import { isRole, type Identity } from '@platform/identity';
import { DPOP_SIGNING_ALGORITHMS } from '@platform/oauth-resource';
import type { EdgeError } from '../routing/edge-errors';
import type { ApiKeyRecord, ApiKeyResolver } from './api-key-cache';
import { AuthUnavailableError } from './api-key-lookup';
import { TokenRejectedError, type AccessTokenVerifier } from './access-token-verifier';
import type { Credential } from './credentials';

/** What a route asks of its caller. */
export interface RouteNeeds {
  /** Resource identifiers accepted as the token's audience (RFC 8707). */
  audiences: string[];
  /** Scope the credential must hold (a JWT its granted scope, an API key the scopes it was made with). Empty: none. */
  scope: string;
  /** Anonymous callers are refused here (speech) instead of by the service. */
  credentialsRequired: boolean;
  /** DPoP `htm` and `htu`. */
  method: string;
  url: string;
  /**
   * `deferred`: a JWT's revocation is left to the caller, which must check it before serving the
   * request (HTTP routes: the plan limiter, in the same Redis round trip as the limits).
   */
  revocation?: 'check' | 'deferred';
}

export interface AuthenticateDeps {
  apiKeys: ApiKeyResolver;
  verifyAccessToken: AccessTokenVerifier;
  /**
   * Whether a token's jti is revoked (`auth:revoked:jti:<jti>`). Needed to defer revocation
   * (`RouteNeeds.revocation`): without it every token is checked inside the verifier.
   */
  isTokenRevoked?: (jti: string) => Promise<boolean>;
}

/**
 * For a JWT: `expiresAt` (Unix seconds) and `tokenId` (its jti), so a connection can end with it;
 * `revocationDeferred` when its revocation is still to be checked by the caller.
 */
export type AuthOutcome =
  | { ok: true; identity: Identity; expiresAt?: number; tokenId?: string; revocationDeferred?: true }
  | { ok: false; error: EdgeError };

export const ANONYMOUS: Identity = { roles: [], scope: '', method: 'anonymous' };

/**
 * An API key's caller: its account, and the speech scopes the key was made with (all, or a subset;
 * never content scopes: docs/architecture.md). HTTP routes and the stream-input WebSocket use this.
 */
export function apiKeyIdentity(record: ApiKeyRecord): Identity {
  return { sub: record.accountId, roles: record.roles, scope: record.scope, method: 'api_key', plan: record.plan };
}

function challenge(scheme: 'Bearer' | 'DPoP', params: Record<string, string>): string {
  const quoted = Object.entries(params).map(([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`);
  // RFC 9449 §7.1: the algorithms a proof may use, the same list as auth's dpop_signing_alg_values_supported.
  const algs = scheme === 'DPoP' ? [`algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`] : [];
  return [`${scheme} realm="platform"`, ...algs, ...quoted].join(', ');
}

export function hasScope(granted: string, needed: string): boolean {
  if (!needed) return true;
  const held = new Set(granted.split(' ').filter(Boolean));
  return needed.split(' ').every((s) => held.has(s));
}

export function insufficientScope(scheme: 'Bearer' | 'DPoP', needed: string): EdgeError {
  return {
    status: 403,
    code: 'insufficient_scope',
    message: `insufficient_scope: this call needs the scope ${needed}`,
    headers: { 'www-authenticate': challenge(scheme, { error: 'insufficient_scope', scope: needed }) },
  };
}

/** A JWT (or its DPoP proof) refused: RFC 6750/9449's code, with the scheme's challenge. */
function tokenRejection(scheme: 'Bearer' | 'DPoP', err: TokenRejectedError): EdgeError {
  return {
    status: err.error === 'invalid_request' ? 400 : 401,
    code: err.error === 'invalid_request' ? 'invalid_request' : 'invalid_token',
    field: 'authorization',
    message: `${err.error}: ${err.description}`,
    headers: {
      ...err.headers,
      'www-authenticate': challenge(scheme, { error: err.error, error_description: err.description }),
    },
  };
}

/** What a revoked access token gets, wherever its revocation was found. */
export function revokedToken(scheme: 'Bearer' | 'DPoP'): EdgeError {
  return tokenRejection(scheme, new TokenRejectedError('invalid_token', 'token revoked'));
}

function authUnavailable(): EdgeError {
  return {
    status: 503,
    code: 'upstream_unavailable',
    message: 'authentication is temporarily unavailable',
    headers: { 'retry-after': '1' },
  };
}

/**
 * Turns a request's credential into the caller's identity, or the rejection the route's
 * interface answers with. One place decides, so every route and the WebSocket agree.
 */
export async function authenticate(
  credential: Credential,
  needs: RouteNeeds,
  deps: AuthenticateDeps,
): Promise<AuthOutcome> {
  switch (credential.kind) {
    case 'none':
      if (!needs.credentialsRequired) return { ok: true, identity: ANONYMOUS };
      return {
        ok: false,
        error: {
          status: 401,
          code: 'missing_credentials',
          message: 'authentication required: send xi-api-key or an Authorization header',
          headers: { 'www-authenticate': challenge('Bearer', {}) },
        },
      };
    case 'malformed':
      return {
        ok: false,
        error: credential.ambiguous
          ? {
              status: 400,
              code: 'invalid_request',
              field: 'authorization',
              message: credential.reason,
              headers: {
                'www-authenticate': challenge('Bearer', {
                  error: 'invalid_request',
                  error_description: credential.reason,
                }),
              },
            }
          : {
              status: 401,
              code: 'invalid_token',
              message: credential.reason,
              headers: {
                'www-authenticate': challenge('Bearer', {
                  error: 'invalid_token',
                  error_description: credential.reason,
                }),
              },
            },
      };
    case 'api_key': {
      let record;
      try {
        record = await deps.apiKeys.resolve(credential.key);
      } catch (err) {
        if (err instanceof AuthUnavailableError) return { ok: false, error: authUnavailable() };
        throw err;
      }
      if (!record) {
        return {
          ok: false,
          error: {
            status: 401,
            code: 'invalid_api_key',
            message: 'invalid_api_key: the API key is not valid',
            headers: {
              'www-authenticate': challenge('Bearer', { error: 'invalid_token', error_description: 'invalid API key' }),
            },
          },
        };
      }
      if (!hasScope(record.scope, needs.scope)) return { ok: false, error: insufficientScope('Bearer', needs.scope) };
      return { ok: true, identity: apiKeyIdentity(record) };
    }
    case 'jwt': {
      const input = {
        token: credential.token,
        scheme: credential.scheme,
        ...(credential.proof !== undefined ? { proof: credential.proof } : {}),
        method: needs.method,
        url: needs.url,
        audiences: needs.audiences,
      };
      const isRevoked = needs.revocation === 'deferred' ? deps.isTokenRevoked : undefined;
      const deferred = isRevoked !== undefined;
      let token;
      try {
        token = await deps.verifyAccessToken({ ...input, revocation: deferred ? 'deferred' : 'check' });
        // A revoked token is refused as revoked (401) before its scope is judged (403), as when checked here.
        if (isRevoked && !hasScope(token.scope, needs.scope) && (await isRevoked(token.jti)))
          return { ok: false, error: revokedToken(credential.scheme) };
      } catch (err) {
        if (err instanceof TokenRejectedError) return { ok: false, error: tokenRejection(credential.scheme, err) };
        if (err instanceof AuthUnavailableError) return { ok: false, error: authUnavailable() };
        throw err;
      }
      if (!hasScope(token.scope, needs.scope))
        return { ok: false, error: insufficientScope(credential.scheme, needs.scope) };
      return {
        ok: true,
        expiresAt: token.exp,
        tokenId: token.jti,
        ...(deferred ? { revocationDeferred: true as const } : {}),
        identity: {
          sub: token.sub,
          roles: token.roles.filter(isRole),
          scope: token.scope,
          method: credential.scheme === 'DPoP' ? 'dpop_jwt' : 'bearer_jwt',
          ...(token.clientId ? { clientId: token.clientId } : {}),
          ...(token.plan ? { plan: token.plan } : {}),
        },
      };
    }
  }
}
