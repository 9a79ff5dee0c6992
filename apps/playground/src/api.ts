import { friendlyText } from './messages';
import { createPacer, type Pacer } from './pacing';

/**
 * Calls to the platform's three interfaces on this origin with the signed-in person's access token, and
 * their error shapes read into one message (worded by messages.ts): the speech API's
 * `{detail: {status, message}}`, GraphQL's `{errors: [{message, extensions: {code}}]}`, OAuth's
 * `{error, error_description}` and content REST's `{error: {code, message}}`, `{error}` or, for
 * invalid fields, `{errors: {field: message}}`.
 */
class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Shape = Record<string, unknown>;
const isShape = (value: unknown): value is Shape => typeof value === 'object' && value !== null;

export function errorFrom(status: number, body: unknown): ApiError {
  const [code, serverText] = codeAndText(body);
  return new ApiError(status, code, friendlyText(code, status, serverText));
}

/** The error code and the server's message of any of the interfaces' error shapes. */
function codeAndText(body: unknown): [code: string, text: string | undefined] {
  if (!isShape(body)) return ['error', undefined];
  const detail = body.detail;
  if (isShape(detail) && typeof detail.message === 'string') return [String(detail.status ?? 'error'), detail.message];
  if (Array.isArray(body.errors) && isShape(body.errors[0])) {
    const first = body.errors[0];
    const code = isShape(first.extensions) ? String(first.extensions.code ?? 'error') : 'error';
    return [code, typeof first.message === 'string' ? first.message : undefined];
  }
  // Content REST's invalid fields, e.g. `{errors: {email: "This email is already used."}}`.
  if (isShape(body.errors)) return ['invalid_fields', Object.values(body.errors).map(String).join(' ') || undefined];
  if (typeof body.error === 'string') return [body.error, String(body.error_description ?? body.message ?? body.error)];
  if (isShape(body.error))
    return [
      String(body.error.code ?? 'error'),
      typeof body.error.message === 'string' ? body.error.message : undefined,
    ];
  return ['error', undefined];
}

type TokenSource = () => Promise<string>;

export interface Api {
  /** The raw response (streams, audio); a non-2xx answer is thrown as ApiError. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  json<T>(path: string, init?: RequestInit): Promise<T>;
  graphql<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
}

/** `pacer` spaces the calls to the account's plan limits (pacing.ts); a retry asks `token` again. */
export function createApi(token: TokenSource, pacer: Pacer = createPacer()): Api {
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await pacer.send(async () => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${await token()}`);
      return fetch(path, { ...init, headers });
    });
    if (!res.ok) throw errorFrom(res.status, await res.json().catch(() => null));
    return res;
  };
  const json = async <T>(path: string, init: RequestInit = {}) => {
    const res = await call(path, init);
    return (res.status === 204 ? undefined : await res.json()) as T;
  };
  return {
    fetch: call,
    json,
    async graphql<T>(query: string, variables: Record<string, unknown> = {}) {
      const body = await json<{ data?: T; errors?: unknown[] }>('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      if (body.errors?.length || !body.data) throw errorFrom(200, body);
      return body.data;
    },
  };
}

export function jsonBody(value: unknown): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}
