/**
 * Resource-server side of the platform's OAuth (RFC 6750, RFC 9068, RFC 9449).
 *
 * ```ts
 * const verifier = createTokenVerifier({
 *   issuer: PUBLIC_URL, jwksUrl: `${AUTH_URL}/jwks`, audiences: [PUBLIC_URL, `${PUBLIC_URL}/v1`], redis,
 * });
 * try {
 *   const token = await verifier.verify(
 *     { authorization: req.headers.authorization, dpop: req.headers.dpop, method: req.method, url: PUBLIC_URL + req.path },
 *     ['speech:write'],
 *   );
 *   // token.sub, token.clientId, token.scopes, token.claims.roles, token.claims.plan
 * } catch (err) {
 *   if (err instanceof ResourceAuthError || err instanceof KeySetUnavailableError) {
 *     res.set(err.headers).status(err.status).json(err.toBody());
 *   }
 * }
 * ```
 * 401 `invalid_token` (bad, expired, revoked, wrong audience), 401 `invalid_dpop_proof` / `use_dpop_nonce`,
 * 403 `insufficient_scope`; `err.headers` carries `WWW-Authenticate` (and `DPoP-Nonce`).
 * `KeySetUnavailableError` (503, `Retry-After`) when auth's JWKS cannot be fetched and no cached key
 * fits the token: the token was not judged, so it is not told it is invalid.
 * `verifyDpopProof` is the same proof check the authorization server runs at /token.
 */
export {
  createTokenVerifier,
  onApiKeyRevoked,
  REVOKED_JTI_PREFIX,
  type TokenVerifier,
  type TokenVerifierOptions,
  type VerifyOptions,
  type ResourceRequest,
  type VerifiedAccessToken,
} from './token-verifier';
export { KeySetUnavailableError, remoteKeySet, type RemoteKeySetOptions } from './key-set';
export { ResourceAuthError, buildChallenge, type ChallengeInput, type ResourceErrorCode } from './challenge';
export {
  verifyDpopProof,
  accessTokenHash,
  DpopProofError,
  DPOP_SIGNING_ALGORITHMS,
  DEFAULT_DPOP_ALGORITHMS,
  type DpopCheckOptions,
  type VerifiedDpopProof,
} from './dpop-proof';
export {
  redisReplayCache,
  redisNonceStore,
  DEFAULT_NONCE_PREFIX,
  type ReplayCache,
  type NonceStore,
} from './replay-cache';
export {
  API_KEY_SCOPES,
  API_KEYS_SCOPE,
  mintableApiKeyScopes,
  normalizeApiKeyScopes,
  type ApiKeyScope,
} from './api-key-scopes';
export {
  SCOPE_MEANINGS,
  developerMeaning,
  personMeaning,
  type DocumentedScope,
  type ScopeMeaning,
} from './scope-meanings';
