export { apiKeysRoutes, type ApiKeysRouteDeps } from './api-keys-routes';
export { authApiKeys, type AuthApiKeys } from './auth-api-keys';
