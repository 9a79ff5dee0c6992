import { DomainError } from '../domain/domain-errors';

/**
 * auth's internal endpoints (architecture.md): content never sees credentials at rest, it
 * forwards them to auth. Every call is bounded in time; auth being down is a 503-class outcome.
 */
export interface Account {
  id: string;
  name: string;
  email: string;
  roles: string[];
  status?: string;
  createdAt?: string;
}

export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  refresh_expires_in: number;
  account: Account;
}

/** A refusal carries auth's status and body, and its Retry-After (seconds) when auth sent one (429). */
type AuthResult<T> =
  { ok: true; value: T } | { ok: false; status: number; body: Record<string, unknown>; retryAfter?: number };

export interface AuthClient {
  createAccount(input: { name: string; email: string; password: string }): Promise<AuthResult<Account>>;
  /** `client_address`: the end user's address, for auth's per-address sign-in limit. */
  login(input: { email: string; password: string; client_address?: string }): Promise<AuthResult<TokenResponse>>;
  refresh(refreshToken: string): Promise<AuthResult<TokenResponse>>;
  getAccount(id: string): Promise<AuthResult<Account>>;
  updateAccount(
    id: string,
    changes: { name?: string; email?: string; roles?: string[]; status?: string },
  ): Promise<AuthResult<Account>>;
}

const TIMEOUT_MS = 5000;

/**
 * An account id as one path segment of auth's internal API. encodeURIComponent leaves dots alone, and
 * the URL parser resolves a `.` or `..` segment (`/internal/accounts/..` is `/internal/`), so those name
 * no account and are never sent.
 */
function accountPath(id: string): string | undefined {
  return id === '' || id === '.' || id === '..' ? undefined : `/internal/accounts/${encodeURIComponent(id)}`;
}

const NO_SUCH_ACCOUNT = {
  ok: false,
  status: 404,
  body: { error: 'not_found', error_description: 'no such account' },
} as const;

export function createAuthClient(baseUrl: string, secret: string, fetchImpl: typeof fetch = fetch): AuthClient {
  async function call<T>(method: string, path: string, body?: unknown): Promise<AuthResult<T>> {
    let res: Response;
    try {
      res = await fetchImpl(new URL(path, baseUrl), {
        method,
        headers: { 'content-type': 'application/json', 'x-internal-secret': secret },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch {
      throw new DomainError('unavailable', 'Authorization service unavailable');
    }
    const text = await res.text().catch(() => '');
    let parsed: unknown = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = {};
    }
    const record = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    if (res.ok) return { ok: true, value: record as T };
    if (res.status >= 500) throw new DomainError('unavailable', 'Authorization service failed');
    const retryAfter = Number(res.headers.get('retry-after'));
    return {
      ok: false,
      status: res.status,
      body: record,
      ...(Number.isInteger(retryAfter) && retryAfter > 0 ? { retryAfter } : {}),
    };
  }
  return {
    createAccount: (input) => call('POST', '/internal/accounts', input),
    login: (input) => call('POST', '/internal/login', input),
    refresh: (refreshToken) => call('POST', '/internal/refresh', { refresh_token: refreshToken }),
    getAccount: async (id) => {
      const path = accountPath(id);
      return path ? call('GET', path) : NO_SUCH_ACCOUNT;
    },
    updateAccount: async (id, changes) => {
      const path = accountPath(id);
      return path ? call('PATCH', path, changes) : NO_SUCH_ACCOUNT;
    },
  };
}
