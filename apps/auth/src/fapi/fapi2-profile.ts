import type { IncomingMessage } from 'node:http';
import { decodeProtectedHeader } from 'jose';
import type { ClientAuthMethod } from '@platform/contracts';
import type { ClientDoc } from '../clients/client-model';
import { OAuthError } from '../oauth/oauth-error';

/**
 * The FAPI 2.0 Security Profile (OpenID FAPI 2.0 Security Profile, final) for the clients registered
 * with `security_profile: "fapi2"`. The rules sit here, next to each other; the endpoints call them:
 * - §5.3.2.1 client authentication `private_key_jwt` only (mTLS is not offered: TLS ends before auth),
 *   with `aud` the issuer identifier (§5.3.2.1.8) and the algorithms of §5.4.1;
 * - §5.3.2.2 PKCE with S256 on every authorization request, codes live 60 s at most;
 * - §5.3.2.1 sender-constrained tokens: DPoP (RFC 9449) on every token request, so no bearer token
 *   and no unbound refresh token is ever issued to the client;
 * - the `iss` authorization response parameter (RFC 9207) and `code` only: every client gets them.
 */

/** §5.4.1: PS256, ES256 and EdDSA (Ed25519; `Ed25519` is RFC 9864's fully-specified name for it). */
export const FAPI2_SIGNING_ALGS = ['PS256', 'ES256', 'EdDSA', 'Ed25519'];
/** §5.3.2.2: "shall ... authorization code lifetime ... not more than 60 seconds". */
const FAPI2_MAX_CODE_SECONDS = 60;

export function isFapi2(client: Pick<ClientDoc, 'securityProfile'>): boolean {
  return client.securityProfile === 'fapi2';
}

/** What a registration must hold to be usable under the profile; a sentence naming the first problem, or undefined. */
export function fapi2RegistrationProblem(input: {
  security_profile?: string | undefined;
  type: string;
  jwks?: unknown;
  jwks_uri?: string | undefined;
  secret?: boolean | undefined;
  require_pushed_authorization_requests?: boolean | undefined;
}): string | undefined {
  if (input.security_profile !== 'fapi2') return undefined;
  if (input.type !== 'confidential') return 'security_profile fapi2: the client must be confidential';
  if (!input.jwks && !input.jwks_uri)
    return 'security_profile fapi2: the client authenticates with private_key_jwt, so jwks or jwks_uri is required';
  // §5.3.2.2: PAR is required; the registration says so itself (clients.ts turns it on).
  if (input.require_pushed_authorization_requests === false)
    return 'security_profile fapi2: pushed authorization requests are required (RFC 9126)';
  if (input.secret !== false)
    return 'security_profile fapi2: the client authenticates with private_key_jwt only; register it with secret: false';
  return undefined;
}

/** §5.3.2.1: the one client authentication method, checked wherever a client authenticates. */
export function checkFapi2ClientAuth(
  client: Pick<ClientDoc, 'securityProfile'>,
  method: ClientAuthMethod,
  invalidClient: (description: string) => OAuthError,
): void {
  if (isFapi2(client) && method !== 'private_key_jwt')
    throw invalidClient('this client (FAPI 2.0 profile) must authenticate with private_key_jwt');
}

/** §5.3.2.1.8 and §5.4.1: the client assertion's `alg` and its `aud`, which must be the issuer identifier itself. */
export function fapi2AssertionProblem(alg: unknown, aud: unknown, issuer: string): string | undefined {
  if (typeof alg !== 'string' || !FAPI2_SIGNING_ALGS.includes(alg))
    return `client_assertion alg must be one of ${FAPI2_SIGNING_ALGS.join(', ')} (FAPI 2.0)`;
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (audiences.length !== 1 || audiences[0] !== issuer)
    return 'client_assertion aud must be the issuer identifier (FAPI 2.0)';
  return undefined;
}

/** §5.3.2.2: PKCE with S256 on every authorization request of the client (the server takes S256 only anyway). */
export function checkFapi2AuthorizationRequest(
  client: Pick<ClientDoc, 'securityProfile'>,
  codeChallenge: string | undefined,
): void {
  if (isFapi2(client) && codeChallenge === undefined)
    throw new OAuthError(
      'invalid_request',
      'PKCE code_challenge with code_challenge_method=S256 is required for this client (FAPI 2.0)',
    );
}

/** §5.3.2.1: every token the client gets is DPoP-bound, so a token request needs a proof, made with an allowed algorithm. */
export function checkFapi2TokenRequest(
  client: Pick<ClientDoc, 'securityProfile'>,
  req: IncomingMessage,
  jkt: string | undefined,
): void {
  if (!isFapi2(client)) return;
  if (!jkt)
    throw new OAuthError(
      'invalid_request',
      'this client (FAPI 2.0 profile) is issued sender-constrained tokens only: send a DPoP proof',
    );
  const { alg } = decodeProtectedHeader(String(req.headers.dpop));
  if (typeof alg !== 'string' || !FAPI2_SIGNING_ALGS.includes(alg))
    throw new OAuthError(
      'invalid_dpop_proof',
      `DPoP proof alg must be one of ${FAPI2_SIGNING_ALGS.join(', ')} for this client (FAPI 2.0)`,
    );
}

/** §5.3.2.2: the code lifetime, at most 60 s for the profile's clients whatever AUTHORIZATION_CODE_TTL says. */
export function codeLifetime(configured: number, client: Pick<ClientDoc, 'securityProfile'> | null): number {
  return client && isFapi2(client) ? Math.min(configured, FAPI2_MAX_CODE_SECONDS) : configured;
}
