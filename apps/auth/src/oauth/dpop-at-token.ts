import type { IncomingMessage } from 'node:http';
import { OAuthError } from './oauth-error';
import {
  DPOP_SIGNING_ALGORITHMS,
  DpopProofError,
  redisNonceStore,
  redisReplayCache,
  verifyDpopProof,
  type DpopCheckOptions,
} from '@platform/oauth-resource';
import type { Deps } from '../deps';

/** `{PUBLIC_URL}/path` whether or not PUBLIC_URL ends with a slash. */
export function publicEndpoint(publicUrl: string, path: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * How auth checks a DPoP proof sent to its endpoint at `path` (RFC 9449 §4.3): the public URL, the
 * algorithms auth advertises, the iat window, one-time `jti` and nonces shared by every replica, and
 * the access token's hash when the proof accompanies one (`ath`).
 */
export function dpopCheckAt(
  deps: Pick<Deps, 'config' | 'redis'>,
  req: IncomingMessage,
  path: string,
  accessToken?: string,
): DpopCheckOptions {
  return {
    method: req.method ?? '',
    url: publicEndpoint(deps.config.PUBLIC_URL, path),
    algorithms: DPOP_SIGNING_ALGORITHMS,
    iatWindowSeconds: deps.config.DPOP_IAT_WINDOW,
    replay: redisReplayCache(deps.redis, 'auth:dpop-jti:'),
    nonces: redisNonceStore(deps.redis),
    requireNonce: deps.config.DPOP_REQUIRE_NONCE,
    ...(accessToken === undefined ? {} : { accessToken }),
  };
}

/**
 * The DPoP proof sent to an authorization-server endpoint (RFC 9449 §5), if any. `htu` is compared
 * with PUBLIC_URL + path: the URL the client addressed through the gateway.
 */
export async function dpopProofAt(deps: Deps, req: IncomingMessage, path: string): Promise<string | undefined> {
  const header = req.headers.dpop;
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || header.includes(','))
    throw new OAuthError('invalid_dpop_proof', 'exactly one DPoP header is allowed');
  try {
    const proof = await verifyDpopProof(header, dpopCheckAt(deps, req, path));
    return proof.jkt;
  } catch (err) {
    if (err instanceof DpopProofError) {
      throw new OAuthError(err.code, err.message, 400, err.nonce ? { 'DPoP-Nonce': err.nonce } : {});
    }
    throw err;
  }
}
