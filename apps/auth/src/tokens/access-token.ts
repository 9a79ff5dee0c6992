import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { randomUUID, type KeyObject } from 'node:crypto';
import { signEs256 } from './jws';
import type { SigningKeys } from '../keys/signing-keys';

export interface AccessTokenInput {
  issuer: string;
  sub: string;
  clientId: string;
  scopes: string[];
  audience: string[];
  ttlSeconds: number;
  /** JWK thumbprint of the DPoP key the token is bound to. */
  jkt?: string;
  roles?: string[];
  plan?: string;
  /** RFC 8693 actor chain. */
  act?: Record<string, unknown>;
  /** Account email, reported as `username` at introspection. */
  username?: string;
}

interface IssuedAccessToken {
  token: string;
  jti: string;
  iat: number;
  exp: number;
}

export interface AccessTokenClaims extends JWTPayload {
  iss: string;
  sub: string;
  aud: string | string[];
  client_id: string;
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  roles?: string[];
  plan?: string;
  cnf?: { jkt: string };
  act?: Record<string, unknown>;
  username?: string;
}

/** RFC 9068 access token: `typ: at+jwt`, ES256 with the current key. */
export async function issueAccessToken(keys: SigningKeys, input: AccessTokenInput): Promise<IssuedAccessToken> {
  const { kid, privateKey } = await keys.current();
  const jti = randomUUID();
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + input.ttlSeconds;
  const claims: Record<string, unknown> = {
    client_id: input.clientId,
    scope: input.scopes.join(' '),
    ...(input.roles ? { roles: input.roles } : {}),
    ...(input.plan ? { plan: input.plan } : {}),
    ...(input.jkt ? { cnf: { jkt: input.jkt } } : {}),
    ...(input.act ? { act: input.act } : {}),
    ...(input.username ? { username: input.username } : {}),
  };
  const payload = {
    ...claims,
    iss: input.issuer,
    sub: input.sub,
    aud: input.audience.length === 1 ? input.audience[0]! : input.audience,
    jti,
    iat,
    exp,
  };
  const token = await signEs256({ alg: 'ES256', typ: 'at+jwt', kid }, payload, privateKey as KeyObject);
  return { token, jti, iat, exp };
}

/** Looks like a JWT we might have signed (cheap check before any crypto). */
export function looksLikeJwt(token: string): boolean {
  return token.length < 8192 && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/**
 * Verifies one of our own access tokens (signature with current/previous key, issuer, typ, lifetime).
 * Null for anything that is not a valid, unexpired access token of ours.
 */
export async function verifyOwnAccessToken(
  keys: SigningKeys,
  issuer: string,
  token: string,
): Promise<AccessTokenClaims | null> {
  if (!looksLikeJwt(token)) return null;
  const now = Math.floor(Date.now() / 1000);
  const known = verifiedTokens.get(token);
  if (known) {
    // Same bytes, same signature: only what changes with time is checked again — expiry, and whether
    // the signing key is still trusted (rotated out of the key set means no longer valid).
    if (known.claims.exp > now && known.claims.iss === issuer && (await keys.publicKey(known.kid))) return known.claims;
    verifiedTokens.delete(token);
    return null;
  }
  try {
    const { kid } = decodeProtectedHeader(token);
    if (typeof kid !== 'string') return null;
    const key = await keys.publicKey(kid);
    if (!key) return null;
    const { payload } = await jwtVerify(token, key, { issuer, algorithms: ['ES256'], typ: 'at+jwt' });
    if (typeof payload.jti !== 'string' || typeof payload.sub !== 'string' || typeof payload.client_id !== 'string')
      return null;
    if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number') return null;
    const claims = payload as AccessTokenClaims;
    rememberVerified(token, kid, claims);
    return claims;
  } catch {
    return null;
  }
}

/**
 * Tokens whose signature was already verified, by their exact bytes (bounded, oldest out first).
 * Introspection and token exchange see the same token many times (a resource server introspects it on
 * every call it serves); re-running ECDSA verification each time was the largest cost of /introspect.
 * Sound because a signature check is a pure function of the bytes and the key: the cache is keyed by
 * the whole token, and every hit re-checks `exp`, the issuer and that the key is still in the key set.
 * Revocation is never cached (checked in Redis on each request by the callers).
 */
const VERIFIED_MAX = 20_000;
const verifiedTokens = new Map<string, { kid: string; claims: AccessTokenClaims }>();
function rememberVerified(token: string, kid: string, claims: AccessTokenClaims): void {
  if (verifiedTokens.size >= VERIFIED_MAX) verifiedTokens.delete(verifiedTokens.keys().next().value!);
  verifiedTokens.set(token, { kid, claims });
}
