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
