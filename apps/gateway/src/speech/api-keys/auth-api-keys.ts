import { request, type Dispatcher } from 'undici';
import { SpeechError } from '@platform/errors';

/** A key as auth's internal API describes it (`toPublicApiKey`); `key` only in the creation answer. */
export interface AuthApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  scopes: string[];
  key?: string;
}

interface AuthApiKeyPage {
  items: AuthApiKey[];
  next_start_after: string | null;
}

/** Auth's answer to a creation that would pass the per-account bound (409 `api_key_limit`). */
export class ApiKeyLimitReached extends Error {}
/** Auth does not know the caller's account (a token whose subject is not an account). */
export class UnknownAccount extends Error {}
/** Auth refused to mint a key with this access token (401 `invalid_token`, 403 `insufficient_scope`); the message is auth's. */
export class MintRefused extends Error {
  constructor(
    readonly status: 401 | 403,
    message: string,
  ) {
    super(message);
  }
}

/** A key minted with the caller's access token: auth caps it at the token's scopes and binds it to the token's grant. */
interface NewApiKey {
  name: string;
  scopes?: string[];
  accessToken: string;
}

/**
 * Auth's internal API-key endpoints (docs/architecture.md "Internal endpoints of auth"), on behalf
 * of one account: the account id always comes from the caller's verified identity, never the request.
 */
export interface AuthApiKeys {
  create(accountId: string, input: NewApiKey): Promise<AuthApiKey>;
  list(accountId: string, pageSize: number, startAfter?: string): Promise<AuthApiKeyPage>;
  /** false: no live key of this account has that id. */
  revoke(accountId: string, keyId: string): Promise<boolean>;
}

export function authApiKeys(
  authUrl: string,
  internalSecret: string,
  dispatcher: Dispatcher,
  timeoutMs: number,
): AuthApiKeys {
  const call = async (
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> => {
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(new URL(path, authUrl), {
        method,
        headers: {
          'x-internal-secret': internalSecret,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        dispatcher,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw unavailable();
    }
    const text = await answer.body.text().catch(() => '');
    let json: unknown = undefined;
    try {
      json = text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      throw unavailable();
    }
    return { status: answer.statusCode, json };
  };
  const account = (id: string) => `/internal/accounts/${encodeURIComponent(id)}/api-keys`;
  return {
    async create(accountId, { name, scopes, accessToken }) {
      const { status, json } = await call('POST', account(accountId), {
        name,
        ...(scopes ? { scopes } : {}),
        access_token: accessToken,
      });
      if (status === 201) return json as AuthApiKey;
      if (status === 401 || status === 403)
        throw new MintRefused(
          status,
          (json as { error_description?: string } | undefined)?.error_description ??
            'this access token cannot create API keys',
        );
      if (status === 409)
        throw new ApiKeyLimitReached(
          (json as { error_description?: string } | undefined)?.error_description ?? 'too many API keys',
        );
      if (status === 404) throw new UnknownAccount();
      throw unavailable();
    },
    async list(accountId, pageSize, startAfter) {
      const query = new URLSearchParams({
        page_size: String(pageSize),
        ...(startAfter ? { start_after: startAfter } : {}),
      });
      const { status, json } = await call('GET', `${account(accountId)}?${query}`);
      if (status !== 200) throw unavailable();
      return json as AuthApiKeyPage;
    },
    async revoke(accountId, keyId) {
      const { status } = await call('DELETE', `${account(accountId)}/${encodeURIComponent(keyId)}`);
      if (status === 204) return true;
      if (status === 404) return false;
      throw unavailable();
    },
  };
}

function unavailable(): SpeechError {
  return new SpeechError(503, 'error', 'API key management is temporarily unavailable; try again.');
}
