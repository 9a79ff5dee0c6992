import { ContentValidationError } from './rest-errors';

/**
 * Small, strict readers for JSON bodies and query strings. Every value is checked for its exact
 * type, so an operator object such as {"$gt": ""} is a validation error naming the property and
 * never reaches a MongoDB query.
 */
type Body = Record<string, unknown>;

export function requireObjectBody(body: unknown): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ContentValidationError({ body: 'must be a JSON object' });
  }
  return body as Body;
}

export class Problems {
  readonly errors: Record<string, string> = {};
  add(property: string, message: string): void {
    this.errors[property] ??= message;
  }
  throwIfAny(): void {
    if (Object.keys(this.errors).length > 0) throw new ContentValidationError(this.errors);
  }
}

export function readString(
  problems: Problems,
  body: Body,
  name: string,
  opts: { required: boolean; min?: number; max: number; trim?: boolean },
): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) {
    if (opts.required) problems.add(name, 'This value should not be blank.');
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.add(name, 'This value should be of type string.');
    return undefined;
  }
  const text = opts.trim === false ? value : value.trim();
  if (text.length < (opts.min ?? (opts.required ? 1 : 0))) {
    problems.add(
      name,
      opts.required || opts.min === 1
        ? 'This value should not be blank.'
        : `This value is too short. It should have ${opts.min} characters or more.`,
    );
    return undefined;
  }
  if (text.length > opts.max) {
    problems.add(name, `This value is too long. It should have ${opts.max} characters or less.`);
    return undefined;
  }
  return text;
}

export function readBoolean(problems: Problems, body: Body, name: string): boolean | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') {
    problems.add(name, 'This value should be of type bool.');
    return undefined;
  }
  return value;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;
export function isEmail(value: string): boolean {
  return value.length <= 320 && EMAIL.test(value);
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Rejects properties the resource does not have, so typos and injected keys are visible. */
export function rejectUnknown(
  problems: Problems,
  body: Body,
  allowed: ReadonlySet<string>,
  ignored: ReadonlySet<string>,
): void {
  for (const key of Object.keys(body)) {
    if (!allowed.has(key) && !ignored.has(key)) problems.add(key, 'This field was not expected.');
  }
}

/** A query parameter as a single string (repeated or bracketed keys are rejected). */
export function queryString(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ContentValidationError({ [name]: 'This value should be of type string.' });
  return value;
}

export function queryPositiveInt(query: Record<string, unknown>, name: string, fallback: number, max: number): number {
  const raw = queryString(query, name);
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw new ContentValidationError({ [name]: 'This value should be a positive integer.' });
  const value = Number(raw);
  if (value < 1) throw new ContentValidationError({ [name]: 'This value should be a positive integer.' });
  if (value > max) throw new ContentValidationError({ [name]: `This value should be ${max} or less.` });
  return value;
}

/** Rejects query keys the endpoint does not take, including `tag[$gt]`-style operator keys. */
export function rejectUnknownQuery(query: Record<string, unknown>, allowed: ReadonlySet<string>): void {
  const errors: Record<string, string> = {};
  for (const key of Object.keys(query)) if (!allowed.has(key)) errors[key] = 'This parameter is not supported.';
  if (Object.keys(errors).length > 0) throw new ContentValidationError(errors);
}
