import type { IncomingMessage } from 'node:http';
import { DEFAULT_DPOP_ALGORITHMS, DpopProofError, buildChallenge, verifyDpopProof } from '@platform/oauth-resource';
import { findAccount } from '../accounts/accounts';
import { findClient } from '../clients/clients';
import type { Deps } from '../deps';
import { dpopCheckAt } from '../oauth/dpop-at-token';
import { verifyOwnAccessToken } from '../tokens/access-token';
import { isAccessTokenRevoked } from '../tokens/revocation';
import { AdminError } from './admin-errors';
import type { AuditActor } from './admin-audit';
import { ADMIN_ROLE, ADMIN_SCOPE } from './admin-scope';

const REALM = 'auth-admin';

function refused(
  scheme: 'Bearer' | 'DPoP',
  status: 401 | 403,
  error: 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof',
  description: string,
): AdminError {
  const challenge = buildChallenge({
    scheme,
    realm: REALM,
    error,
    description,
    ...(error === 'insufficient_scope' ? { scope: ADMIN_SCOPE } : {}),
    ...(scheme === 'DPoP' ? { algs: DEFAULT_DPOP_ALGORITHMS } : {}),
  });
  return new AdminError(status, error, description, { 'WWW-Authenticate': challenge });
}

/**
 * Who is calling the administration API (RFC 6750 / RFC 9449 at auth itself): an access token of this
 * server — signature, `iss`, `typ`, `exp` (tokens/access-token.ts), `aud` including the issuer, not
 * revoked, its DPoP key proven when it is bound (`cnf.jkt`) — carrying the `admin` scope, held by an
 * active account that has the ADMIN role now, or by a client for itself whose registration still lists
 * the `admin` scope. The holder is looked up on every call, so a demotion applies at once (it also
 * revokes the account's tokens).
 */
export async function authenticateAdmin(deps: Deps, req: IncomingMessage, path: string): Promise<AuditActor> {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^(Bearer|DPoP) ([A-Za-z0-9._~+/-]+=*)$/i.exec(header) : null;
  if (!match) {
    throw new AdminError(401, 'invalid_token', 'an access token with the admin scope is required', {
      'WWW-Authenticate': `Bearer realm="${REALM}", DPoP realm="${REALM}", algs="${DEFAULT_DPOP_ALGORITHMS.join(' ')}"`,
    });
  }
  const scheme = match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
  const token = match[2]!;
  const claims = await verifyOwnAccessToken(deps.keys, deps.config.PUBLIC_URL, token);
  if (!claims) throw refused(scheme, 401, 'invalid_token', 'the access token is invalid or expired');
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(deps.config.PUBLIC_URL))
    throw refused(scheme, 401, 'invalid_token', 'the access token is not meant for this server');
  if (await isAccessTokenRevoked(deps.redis, claims.jti))
    throw refused(scheme, 401, 'invalid_token', 'the access token was revoked');

  if (claims.cnf?.jkt) {
    // RFC 9449 §7.1: a bound token only with the DPoP scheme and a proof by its key for this request.
    if (scheme !== 'DPoP')
      throw refused('DPoP', 401, 'invalid_token', 'a DPoP-bound token must be sent with the DPoP scheme');
    const proof = req.headers.dpop;
    if (typeof proof !== 'string' || proof.includes(','))
      throw refused('DPoP', 401, 'invalid_dpop_proof', 'exactly one DPoP proof is required');
    try {
      const checked = await verifyDpopProof(proof, dpopCheckAt(deps, req, path, token));
      if (checked.jkt !== claims.cnf.jkt)
        throw refused(
          'DPoP',
          401,
          'invalid_dpop_proof',
          'the DPoP proof is not made with the key the token is bound to',
        );
    } catch (err) {
      if (err instanceof DpopProofError) {
        const refusal = refused(
          'DPoP',
          401,
          err.code === 'use_dpop_nonce' ? 'invalid_dpop_proof' : err.code,
          err.message,
        );
        throw err.nonce
          ? new AdminError(401, err.code, err.message, { ...refusal.headers, 'DPoP-Nonce': err.nonce })
          : refusal;
      }
      throw err;
    }
  } else if (scheme === 'DPoP') {
    throw refused('DPoP', 401, 'invalid_token', 'the token is not DPoP-bound; send it as Bearer');
  }

  if (!claims.scope.split(' ').includes(ADMIN_SCOPE))
    throw refused(scheme, 403, 'insufficient_scope', 'the admin scope is required');
  if (claims.roles === undefined && claims.sub === claims.client_id) {
    const client = await findClient(deps.clients, claims.client_id);
    if (!client?.scopes.includes(ADMIN_SCOPE))
      throw refused(scheme, 403, 'insufficient_scope', 'the client is not registered for the admin scope');
    return { type: 'client', id: client._id };
  }
  const account = await findAccount(deps.accounts, claims.sub);
  if (!account || account.status !== 'active' || !account.roles.includes(ADMIN_ROLE))
    throw refused(scheme, 403, 'insufficient_scope', 'the account is not an active administrator');
  return { type: 'account', id: account._id };
}
