/**
 * The scopes a speech API key can hold (docs/architecture.md "API keys"). A key is created with all
 * of them or a subset; keys stored before keys had scopes hold all of them. Auth stores and answers
 * them at its key lookup; the gateway grants a key's caller exactly these, never content scopes.
 */
export const API_KEY_SCOPES = ['speech:read', 'speech:write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** A key's scopes in the canonical order, without duplicates; undefined or empty input means all. */
export function normalizeApiKeyScopes(scopes: readonly string[] | undefined | null): ApiKeyScope[] {
  if (!scopes || scopes.length === 0) return [...API_KEY_SCOPES];
  return API_KEY_SCOPES.filter((scope) => scopes.includes(scope));
}

/**
 * The OAuth scope an access token needs to create (and revoke) API keys at `POST /v1/api-keys`: a key is a
 * bearer credential that outlives the token, so no other scope implies it. Auth shows it on the consent
 * page and checks it again when it stores the key; the gateway checks it at the route.
 */
export const API_KEYS_SCOPE = 'speech:keys';

/**
 * The scopes a key minted with an access token may hold: the token's speech scopes that a key can hold.
 * A key never holds more than the token that made it.
 */
export function mintableApiKeyScopes(tokenScope: string): ApiKeyScope[] {
  const held = tokenScope.split(' ');
  return API_KEY_SCOPES.filter((scope) => held.includes(scope));
}
