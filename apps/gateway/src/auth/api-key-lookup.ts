import { request, type Dispatcher } from 'undici';
import { isRole } from '@platform/identity';
import { API_KEY_SCOPES, normalizeApiKeyScopes } from '@platform/oauth-resource';
import type { ApiKeyLookup, ApiKeyRecord } from './api-key-cache';

export class AuthUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthUnavailableError';
  }
}

function parseRecord(body: unknown): ApiKeyRecord | null {
  if (typeof body !== 'object' || body === null) return null;
  const { accountId, plan, keyId, roles, scope } = body as Record<string, unknown>;
  if (typeof accountId !== 'string' || typeof keyId !== 'string') return null;
  // Only speech scopes, whatever the answer says. A scope naming none of them is malformed (it must
  // not widen to "all"); no scope at all is an auth that predates key scopes, whose keys hold all.
  if (scope !== undefined && typeof scope !== 'string') return null;
  const scopes =
    scope === undefined ? normalizeApiKeyScopes(undefined) : API_KEY_SCOPES.filter((s) => scope.split(' ').includes(s));
  if (scopes.length === 0) return null;
  return {
    accountId,
    keyId,
    plan: typeof plan === 'string' && plan.length > 0 ? plan : 'free',
    roles: Array.isArray(roles) ? roles.filter(isRole) : ['USER'],
    scope: scopes.join(' '),
  };
}

/**
 * Asks auth whether an API key is live (`POST /internal/api-keys/lookup`, docs/architecture.md).
 * 404 means unknown or revoked; anything else unexpected is an outage, not a rejection, so the
 * caller answers 503 instead of telling a valid key it is invalid.
 */
export function authApiKeyLookup(
  authUrl: string,
  internalSecret: string,
  dispatcher: Dispatcher,
  timeoutMs: number,
): ApiKeyLookup {
  const url = new URL('/internal/api-keys/lookup', authUrl);
  return async (key) => {
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-internal-secret': internalSecret },
        body: JSON.stringify({ key }),
        dispatcher,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new AuthUnavailableError(`auth lookup failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const text = await answer.body.text().catch(() => '');
    if (answer.statusCode === 404 || answer.statusCode === 400) return null;
    if (answer.statusCode !== 200) throw new AuthUnavailableError(`auth lookup answered ${answer.statusCode}`);
    try {
      const record = parseRecord(JSON.parse(text));
      if (!record) throw new AuthUnavailableError('auth lookup answer malformed');
      return record;
    } catch (err) {
      if (err instanceof AuthUnavailableError) throw err;
      throw new AuthUnavailableError('auth lookup answer is not JSON');
    }
  };
}
