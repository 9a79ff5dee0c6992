// The auth interface's request and response shapes (zod, from 'zod/v4'): its app validates with them and
// libs/api-docs writes its OpenAPI document from them. The `/token` forms are the grants' (libs/oauth-grants).
export { ACCOUNT_STATUSES, accountFields, accountPatch, adminAccountPatch, type AccountPatch } from './accounts';
export {
  CLIENT_KEY_ALGS,
  INTROSPECTION_SIGNING_ALGS,
  SECURITY_PROFILES,
  clientJwks,
  clientPatch,
  clientRegistration,
  initialAccessTokenRequest,
  redirectUri,
  type ClientPatch,
  type ClientRegistration,
} from './clients';
export { adminAccountEmailFilter, adminPageQuery } from './admin-paging';
export { authorizationRequest } from './authorization-request';
export { endSessionRequest } from './end-session';
export { INTERNAL_ID, internalApiKeyCreation, internalApiKeyLookup, internalApiKeyPage } from './internal-api-keys';
export { internalLogin, internalLoginUnlock, internalRefresh } from './internal-login';
export { OAUTH_ERROR_CODES, oauthErrorBody, type OAuthErrorCode } from './oauth-errors';
export {
  accountPage,
  auditEntry,
  auditPage,
  clientPage,
  clientSecret,
  deletedClient,
  publicAccount,
  publicClient,
  registeredClient,
  retiredKey,
  rotatedKey,
  signingKey,
  signingKeys,
  unlockedLogins,
  type PublicAccount,
  type PublicClient,
} from './admin-responses';
export {
  deviceAuthorizationResponse,
  introspectionResponse,
  openIdProviderMetadata,
  pushedAuthorizationResponse,
  serverJwks,
  serverMetadata,
  tokenResponse,
  userInfo,
} from './oauth-responses';
export { deletedInitialAccessToken, initialAccessToken, issuedClientCredentials } from './registration-responses';
export { CLIENT_ASSERTION_TYPE, clientAuthentication, deviceAuthorizationForm, tokenForm } from './oauth-forms';
export {
  CLIENT_ASSERTION_ALGS,
  CLIENT_AUTH_METHODS,
  HMAC_ALGS,
  clientMetadata,
  registeredClientMetadata,
  type ClientAuthMethod,
} from './registration';
