import { z } from 'zod/v4';
import { authorizationRequest } from '@platform/contracts';
import { isRepeatable, type GrantParameters } from '@platform/oauth-grants';
import { OAuthError } from './oauth-error';

/** Form bodies are small: 16 KiB and 64 parameters at most (413 `invalid_request` beyond). */
export { formBody } from '../http/form-body';

export type Params = Record<string, unknown>;

export function paramsOf(value: unknown): Params {
  return value && typeof value === 'object' ? (value as Params) : {};
}

/**
 * A form's parameters (libs/oauth-grants' zod schemas), parsed by the rules of RFC 6749 §3.1/§3.2: an empty
 * value is an absent one, a parameter comes once unless its schema is an array (then one value is a list of
 * one), unknown parameters are ignored. The first problem is the `invalid_request` answer, described as
 * `single`, `required` and `repeated` describe theirs.
 */
export function formParams<P extends GrantParameters>(parameters: P, params: Params): z.output<z.ZodObject<P>> {
  const given: Params = {};
  for (const [name, schema] of Object.entries(parameters)) {
    const value = params[name];
    if (value === undefined || value === '') continue;
    given[name] = isRepeatable(schema) && !Array.isArray(value) ? [value] : value;
  }
  const parsed = z.object(parameters).safeParse(given);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const name = String(issue?.path[0]);
  throw new OAuthError('invalid_request', `${name} ${problemOf(issue, parameters[name], given[name])}`);
}

function problemOf(issue: z.core.$ZodIssue | undefined, schema: z.ZodType | undefined, value: unknown): string {
  if (value === undefined) return 'is required';
  if (!issue || !schema || isRepeatable(schema)) return 'is malformed';
  if (issue.code === 'invalid_type') return 'must be given once';
  if (issue.code === 'too_big') return 'is too long';
  // A schema's own description of its rule (`z.literal(…, { error })`).
  return issue.message;
}

/**
 * One parameter of a form, by `formParams`' rules and descriptions; undefined when it was not sent (what
 * follows from its absence is the caller's). For requests whose checks come in a set order (the authorization
 * request's: which error goes back to the client and which is shown on a page, RFC 6749 §4.1.2.1), each
 * parameter is read where its check is.
 */
export function formParam<P extends GrantParameters, K extends keyof P & string>(
  parameters: P,
  name: K,
  params: Params,
): z.output<P[K]> | undefined {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  const one = { [name]: parameters[name] } as Pick<P, K>;
  return (formParams(one, params) as Record<string, unknown>)[name] as z.output<P[K]>;
}

/** One parameter of an authorization request (libs/contracts), read where its check is (`formParam`). */
export function authorizationParam<K extends keyof typeof authorizationRequest & string>(params: Params, name: K) {
  return formParam(authorizationRequest, name, params);
}

/** A parameter that may appear at most once (RFC 6749 §3.1/§3.2), bounded in length. */
function single(params: Params, name: string, maxLength = 4096): string | undefined {
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

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/;

/** The scopes of a `scope` value (RFC 6749 §3.3), or undefined when none was sent (`invalid_scope` when malformed). */
export function scopeList(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const scopes = [...new Set(raw.split(' ').filter(Boolean))];
  if (!scopes.every((s) => SCOPE_TOKEN.test(s))) throw new OAuthError('invalid_scope', 'scope is malformed');
  return scopes;
}
