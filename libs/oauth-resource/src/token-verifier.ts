import type { Redis } from 'ioredis';
import {
  decodeJwt,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { buildChallenge, ResourceAuthError, type ResourceErrorCode } from './challenge';
import { DEFAULT_DPOP_ALGORITHMS, DpopProofError, verifyDpopProof } from './dpop-proof';
import { KeySetUnavailableError, remoteKeySet } from './key-set';
import { redisNonceStore, redisReplayCache, type NonceStore } from './replay-cache';

export const REVOKED_JTI_PREFIX = 'auth:revoked:jti:';

export interface TokenVerifierOptions {
  /** The authorization server's issuer (PUBLIC_URL). */
  issuer: string;
  /** Where the JWKS is fetched (cached, refetched on unknown `kid` at most every 30 s). */
  jwksUrl: string;
  /** Audiences (RFC 8707 resource identifiers) this resource server accepts; a token needs one of them. */
  audiences: string[];
  /** Redis shared with auth: revocations (`auth:revoked:jti:*`), DPoP jti replay, DPoP nonces. */
  redis: Redis;
  /** `realm` in challenges. */
  realm?: string;
  dpop?: {
    algorithms?: readonly string[];
    iatWindowSeconds?: number;
    /** Demand server nonces in proofs (RFC 9449 §9). */
    requireNonce?: boolean;
    replayPrefix?: string;
    nonceStore?: NonceStore;
  };
  clockToleranceSeconds?: number;
  /** Minimum time between JWKS refetches triggered by an unknown `kid` (30 s; auth's KEY_ACTIVATION_DELAY must exceed it). */
  jwksCooldownSeconds?: number;
  /** Bound on one JWKS fetch (5 s); a fetch that fails or times out is a `KeySetUnavailableError`. */
  jwksTimeoutSeconds?: number;
  /** Test seam: a key resolver instead of the remote JWKS. */
  keys?: JWTVerifyGetKey;
  /**
   * How long a token whose signature and claims were verified is remembered by its exact bytes
   * (60 s; never past 5 s before its `exp`; 0 turns the cache off). A hit skips only the signature
   * and claim checks: `exp` is checked again, and revocation, DPoP binding, the proof and scopes
   * on every request.
   */
  verifiedTokenCacheMs?: number;
  /** Test seam: the clock, in milliseconds. */
  now?: () => number;
}

export interface VerifyOptions {
  /**
   * `deferred`: the caller checks `auth:revoked:jti:<jti>` itself for this request (the gateway
   * does it in the same Redis round trip as its limits) and refuses the token if it is there.
   * Default `check`: the verifier asks Redis.
   */
  revocation?: 'check' | 'deferred';
}

export interface ResourceRequest {
  /** The `Authorization` header. */
  authorization?: string | string[];
  /** The `DPoP` header. */
  dpop?: string | string[];
  method: string;
  /** The URL as the client addressed it (public origin + path), for the proof's `htu`. */
  url: string;
}

export interface VerifiedAccessToken {
  scheme: 'Bearer' | 'DPoP';
  token: string;
  claims: JWTPayload & { scope?: string; client_id?: string; roles?: string[]; plan?: string; cnf?: { jkt?: string } };
  sub: string;
  clientId: string;
  scopes: string[];
  /** Thumbprint of the key the token is bound to (DPoP). */
  jkt?: string;
}

export interface TokenVerifier {
  /**
   * Resolves with the token's claims, or throws a ResourceAuthError ready to be sent (the token
   * is refused), or a KeySetUnavailableError (503: auth's keys could not be fetched, so the token
   * could not be judged). Other errors (Redis down) are outages too.
   */
  verify(
    request: ResourceRequest,
    requiredScopes?: string[],
    verifyOptions?: VerifyOptions,
  ): Promise<VerifiedAccessToken>;
}

type Claims = VerifiedAccessToken['claims'];

const VERIFIED_CACHE_ENTRIES = 10_000;
const EXPIRY_MARGIN_MS = 5_000;

/** Tokens whose signature and claims passed, by their exact text, each until its `until`. */
function verifiedTokenCache(lifetimeMs: number, now: () => number) {
  const entries = new Map<string, { claims: Claims; until: number }>();
  return {
    get(token: string): Claims | undefined {
      const hit = entries.get(token);
      if (!hit) return undefined;
      const exp = hit.claims.exp;
      if (now() >= hit.until || typeof exp !== 'number' || exp * 1000 <= now()) {
        entries.delete(token);
        return undefined;
      }
      return hit.claims;
    },
    set(token: string, claims: Claims): void {
      if (lifetimeMs <= 0 || typeof claims.exp !== 'number') return;
      const until = Math.min(now() + lifetimeMs, claims.exp * 1000 - EXPIRY_MARGIN_MS);
      if (until <= now()) return;
      if (entries.size >= VERIFIED_CACHE_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(token, { claims: Object.freeze(claims), until });
    },
  };
}

const ACCESS_TOKEN_ALGORITHMS = ['ES256', 'EdDSA'];
const REQUIRED_CLAIMS = ['exp', 'iat', 'jti', 'sub'];

/**
 * Without keys a token cannot be accepted, but it can still be refused: when its unverified
 * header and claims fail a check the signature cannot change (typ, issuer, expiry, audience), it
 * would be refused with keys too, so the answer is that 401 and not a 503 to retry.
 */
function refusedWithoutKeys(token: string, options: TokenVerifierOptions): string | undefined {
  let typ: unknown;
  let claims: JWTPayload;
  try {
    typ = decodeProtectedHeader(token).typ;
    claims = decodeJwt(token);
  } catch {
    return 'token is invalid';
  }
  if (typeof typ !== 'string' || typ.toLowerCase().replace(/^application\//, '') !== 'at+jwt')
    return 'token is invalid';
  if (REQUIRED_CLAIMS.some((name) => !(name in claims)) || claims.iss !== options.issuer) return 'token is invalid';
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number' || claims.exp <= now - (options.clockToleranceSeconds ?? 5))
    return 'token expired';
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
  if (!audiences.some((aud) => options.audiences.includes(aud))) return 'token audience is not this resource';
  return undefined;
}

/**
 * Local access-token verification for resource servers (the gateway): RFC 9068 JWTs against the
 * cached JWKS, revocation through Redis, audience, expiry, scopes, and DPoP proofs (RFC 9449).
 */
export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const keys =
    options.keys ??
    remoteKeySet(new URL(options.jwksUrl), {
      cooldownMs: (options.jwksCooldownSeconds ?? 30) * 1000,
      timeoutMs: (options.jwksTimeoutSeconds ?? 5) * 1000,
      maxAgeMs: 600_000,
    });
  const algs = options.dpop?.algorithms ?? DEFAULT_DPOP_ALGORITHMS;
  const replay = redisReplayCache(options.redis, options.dpop?.replayPrefix ?? 'rs:dpop-jti:');
  const nonces = options.dpop?.nonceStore ?? redisNonceStore(options.redis);
  const verified = verifiedTokenCache(options.verifiedTokenCacheMs ?? 60_000, options.now ?? Date.now);

  async function verifySignatureAndClaims(scheme: 'Bearer' | 'DPoP', token: string): Promise<Claims> {
    const cached = verified.get(token);
    if (cached) return cached;
    let claims: Claims;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        audience: options.audiences,
        algorithms: ACCESS_TOKEN_ALGORITHMS,
        typ: 'at+jwt',
        clockTolerance: options.clockToleranceSeconds ?? 5,
        requiredClaims: REQUIRED_CLAIMS,
        ...(options.now ? { currentDate: new Date(options.now()) } : {}),
      }));
    } catch (err) {
      if (err instanceof KeySetUnavailableError) {
        const refused = refusedWithoutKeys(token, options);
        if (refused) throw failure(scheme, 401, 'invalid_token', refused);
        throw err;
      }
      const why =
        err instanceof joseErrors.JWTExpired
          ? 'token expired'
          : err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud'
            ? 'token audience is not this resource'
            : 'token is invalid';
      throw failure(scheme, 401, 'invalid_token', why);
    }
    verified.set(token, claims);
    return claims;
  }

  function failure(
    scheme: 'Bearer' | 'DPoP',
    status: 400 | 401 | 403,
    error: ResourceErrorCode | 'missing_token',
    description: string,
    extra: { scope?: string; nonce?: string } = {},
  ): ResourceAuthError {
    const headers: Record<string, string> = {};
    const code = error === 'missing_token' ? undefined : error;
    if (error === 'missing_token') {
      // No credentials: offer both schemes (RFC 9449 §7.1).
      headers['WWW-Authenticate'] =
        `${buildChallenge({ scheme: 'Bearer', ...(options.realm ? { realm: options.realm } : {}) })}, ${buildChallenge({ scheme: 'DPoP', algs, ...(options.realm ? { realm: options.realm } : {}) })}`;
    } else {
      headers['WWW-Authenticate'] = buildChallenge({
        scheme,
        ...(options.realm ? { realm: options.realm } : {}),
        ...(code ? { error: code } : {}),
        description,
        ...(extra.scope ? { scope: extra.scope } : {}),
        ...(scheme === 'DPoP' ? { algs } : {}),
      });
    }
    if (extra.nonce) headers['DPoP-Nonce'] = extra.nonce;
    return new ResourceAuthError(status, error, description, headers);
  }

  return {
    async verify(request, requiredScopes = [], verifyOptions = {}) {
      const authorization = request.authorization;
      if (authorization === undefined || authorization === '')
        throw failure('Bearer', 401, 'missing_token', 'no access token');
      if (Array.isArray(authorization))
        throw failure('Bearer', 400, 'invalid_request', 'more than one Authorization header');
      const match = /^(Bearer|DPoP) ([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization.trim());
      if (!match) throw failure('Bearer', 401, 'invalid_token', 'Authorization header is not a Bearer or DPoP token');
      const scheme = match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
      const token = match[2]!;
      if (token.length > 8192) throw failure(scheme, 401, 'invalid_token', 'token too long');

      const claims = await verifySignatureAndClaims(scheme, token);
      if (
        verifyOptions.revocation !== 'deferred' &&
        (await options.redis.exists(`${REVOKED_JTI_PREFIX}${String(claims.jti)}`)) === 1
      ) {
        throw failure(scheme, 401, 'invalid_token', 'token revoked');
      }
      const jkt = typeof claims.cnf?.jkt === 'string' ? claims.cnf.jkt : undefined;
      if (scheme === 'Bearer' && jkt)
        throw failure('DPoP', 401, 'invalid_token', 'DPoP-bound token presented as Bearer');
      if (scheme === 'DPoP') {
        if (!jkt) throw failure('DPoP', 401, 'invalid_token', 'token is not DPoP-bound');
        const proof = request.dpop;
        if (typeof proof !== 'string' || proof === '')
          throw failure('DPoP', 401, 'invalid_dpop_proof', 'DPoP proof missing or repeated');
        try {
          const verified = await verifyDpopProof(proof, {
            method: request.method,
            url: request.url,
            accessToken: token,
            algorithms: algs,
            iatWindowSeconds: options.dpop?.iatWindowSeconds ?? 60,
            replay,
            nonces,
            requireNonce: options.dpop?.requireNonce ?? false,
          });
          if (verified.jkt !== jkt)
            throw new DpopProofError('invalid_dpop_proof', 'DPoP proof key does not match the token binding');
        } catch (err) {
          if (err instanceof DpopProofError)
            throw failure('DPoP', 401, err.code, err.message, err.nonce ? { nonce: err.nonce } : {});
          throw err;
        }
      }
      const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
      const missing = requiredScopes.filter((s) => !scopes.includes(s));
      if (missing.length)
        throw failure(scheme, 403, 'insufficient_scope', `requires scope ${requiredScopes.join(' ')}`, {
          scope: requiredScopes.join(' '),
        });
      return {
        scheme,
        token,
        claims,
        sub: String(claims.sub),
        clientId: typeof claims.client_id === 'string' ? claims.client_id : '',
        scopes,
        ...(jkt ? { jkt } : {}),
      };
    },
  };
}

/** Calls `onRevoked(keyId)` whenever auth revokes an API key (needs a dedicated subscriber connection). */
export async function onApiKeyRevoked(subscriber: Redis, onRevoked: (keyId: string) => void): Promise<void> {
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === 'auth:api-key-revoked') onRevoked(message);
  });
  await subscriber.subscribe('auth:api-key-revoked');
}
