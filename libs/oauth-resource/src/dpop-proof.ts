import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import type { NonceStore, ReplayCache } from './replay-cache';

/**
 * The DPoP proof algorithms this platform accepts (asymmetric only: RFC 9449 §4.2), defined once:
 * auth's metadata (`dpop_signing_alg_values_supported`), auth's /token, and every resource server's
 * check and `WWW-Authenticate: DPoP algs=` use this list. `Ed25519` is RFC 9864's fully-specified
 * name for EdDSA over Ed25519 (current oauth4webapi and openid-client send it); `EdDSA` is the
 * older, polymorphic name (RFC 8037) older clients send.
 */
export const DPOP_SIGNING_ALGORITHMS: readonly string[] = Object.freeze([
  'ES256',
  'Ed25519',
  'EdDSA',
  'ES384',
  'PS256',
  'RS256',
]);
/** The same list under its older name. */
export const DEFAULT_DPOP_ALGORITHMS = DPOP_SIGNING_ALGORITHMS;

/**
 * Whether a JWS `alg` can be made by the key in the proof's `jwk`. jose checks this as well when it
 * verifies; checking here first gives the client a clear reason, and keeps the rule explicit should
 * the library's ever loosen (a proof must not pass under an algorithm its key cannot make).
 */
function algorithmFitsKey(alg: string, jwk: JWK): boolean {
  switch (alg) {
    case 'ES256':
      return jwk.kty === 'EC' && jwk.crv === 'P-256';
    case 'ES384':
      return jwk.kty === 'EC' && jwk.crv === 'P-384';
    case 'Ed25519':
      return jwk.kty === 'OKP' && jwk.crv === 'Ed25519';
    case 'EdDSA':
      return jwk.kty === 'OKP' && (jwk.crv === 'Ed25519' || jwk.crv === 'Ed448');
    case 'PS256':
    case 'RS256':
      return jwk.kty === 'RSA';
    default:
      return false;
  }
}

export class DpopProofError extends Error {
  constructor(
    readonly code: 'invalid_dpop_proof' | 'use_dpop_nonce',
    message: string,
    /** A fresh nonce to send in the `DPoP-Nonce` header (for `use_dpop_nonce`). */
    readonly nonce?: string,
  ) {
    super(message);
    this.name = 'DpopProofError';
  }
}

export interface DpopCheckOptions {
  method: string;
  /** The request URL as the client addressed it (query and fragment are ignored, RFC 9449 §4.3). */
  url: string;
  /** Access token presented with the proof: the proof's `ath` must be its hash. */
  accessToken?: string;
  algorithms?: readonly string[];
  /** How far `iat` may be from now, in seconds (default 60). */
  iatWindowSeconds?: number;
  replay: ReplayCache;
  /** When given: a proof nonce is checked against it; `requireNonce` makes one mandatory. */
  nonces?: NonceStore;
  requireNonce?: boolean;
}

export interface VerifiedDpopProof {
  /** RFC 7638 SHA-256 thumbprint of the proof key: `cnf.jkt`. */
  jkt: string;
  jwk: JWK;
  jti: string;
  iat: number;
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

function normalizeHtu(value: string): string | undefined {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname}`.toLowerCase();
  } catch {
    return undefined;
  }
}

export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest('base64url');
}

/** Checks a DPoP proof JWT (RFC 9449 §4.3) and returns the key's thumbprint. */
export async function verifyDpopProof(proof: string, options: DpopCheckOptions): Promise<VerifiedDpopProof> {
  const fail = (message: string): never => {
    throw new DpopProofError('invalid_dpop_proof', message);
  };
  if (proof.length > 8192 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(proof))
    fail('DPoP proof is not a JWS');
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    return fail('DPoP proof header is malformed');
  }
  if (header.typ !== 'dpop+jwt') fail('DPoP proof typ must be dpop+jwt');
  const algorithms = options.algorithms ?? DEFAULT_DPOP_ALGORITHMS;
  if (typeof header.alg !== 'string' || header.alg === 'none' || !algorithms.includes(header.alg))
    fail('DPoP proof alg is not allowed');
  const jwk = header.jwk;
  if (!jwk || typeof jwk !== 'object') fail('DPoP proof has no jwk');
  if (jwk!.kty === 'oct' || PRIVATE_MEMBERS.some((m) => m in jwk!)) fail('DPoP proof jwk must be a public key');
  if (!algorithmFitsKey(header.alg!, jwk as JWK))
    fail(`DPoP proof alg does not fit its jwk (${header.alg!} cannot be made by this key)`);

  let payload: Record<string, unknown>;
  try {
    const key = await importJWK(jwk as JWK, header.alg);
    ({ payload } = await jwtVerify(proof, key, { typ: 'dpop+jwt', algorithms: [header.alg!] }));
  } catch {
    return fail('DPoP proof signature is invalid');
  }
  const { jti, htm, htu, iat } = payload as { jti?: unknown; htm?: unknown; htu?: unknown; iat?: unknown };
  if (typeof jti !== 'string' || jti.length < 1 || jti.length > 256) fail('DPoP proof jti is missing');
  if (htm !== options.method.toUpperCase()) fail('DPoP proof htm does not match the request method');
  if (typeof htu !== 'string' || normalizeHtu(htu) === undefined || normalizeHtu(htu) !== normalizeHtu(options.url)) {
    fail('DPoP proof htu does not match the request URL');
  }
  const window = options.iatWindowSeconds ?? 60;
  const now = Math.floor(Date.now() / 1000);
  if (typeof iat !== 'number' || Math.abs(now - iat) > window) fail('DPoP proof iat is outside the accepted window');
  if (options.accessToken !== undefined && payload.ath !== accessTokenHash(options.accessToken)) {
    fail('DPoP proof ath does not match the access token');
  }
  if (options.nonces) {
    const nonce = payload.nonce;
    const valid = typeof nonce === 'string' && (await options.nonces.isValid(nonce));
    if ((options.requireNonce || nonce !== undefined) && !valid) {
      throw new DpopProofError('use_dpop_nonce', 'a fresh DPoP nonce is required', await options.nonces.issue());
    }
  }
  const jkt = await calculateJwkThumbprint(jwk as JWK, 'sha256');
  // Last, so a proof rejected for another reason does not burn its jti.
  if (!(await options.replay.firstUse(`${jkt}:${jti as string}`, window * 2 + 5))) fail('DPoP proof was already used');
  return { jkt, jwk: jwk as JWK, jti: jti as string, iat: iat as number };
}
