import { OAuthError } from './oauth-error';

/** Form bodies are small: 16 KiB and 64 parameters at most (413 `invalid_request` beyond). */
export { formBody } from '../http/form-body';

export type Params = Record<string, unknown>;

export function paramsOf(value: unknown): Params {
  return value && typeof value === 'object' ? (value as Params) : {};
}

/** A parameter that may appear at most once (RFC 6749 §3.1/§3.2), bounded in length. */
export function single(params: Params, name: string, maxLength = 4096): string | undefined {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must be given once`);
  if (value.length > maxLength) throw new OAuthError('invalid_request', `${name} is too long`);
  return value;
}

export function required(params: Params, name: string, maxLength = 4096): string {
  const value = single(params, name, maxLength);
  if (value === undefined) throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

/** A repeatable parameter (`resource`, `audience`). */
export function repeated(params: Params, name: string): string[] {
  const value = params[name];
  if (value === undefined || value === '') return [];
  const list = Array.isArray(value) ? value : [value];
  if (list.length > 10 || !list.every((v): v is string => typeof v === 'string' && v.length > 0 && v.length <= 2000)) {
    throw new OAuthError('invalid_request', `${name} is malformed`);
  }
  return list;
}

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/;

/** Requested scopes, or undefined when the parameter is absent. */
export function scopeParam(params: Params): string[] | undefined {
  const raw = single(params, 'scope', 2000);
  if (raw === undefined) return undefined;
  const scopes = [...new Set(raw.split(' ').filter(Boolean))];
  if (!scopes.every((s) => SCOPE_TOKEN.test(s))) throw new OAuthError('invalid_scope', 'scope is malformed');
  return scopes;
}
