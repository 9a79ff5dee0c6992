import type { Request } from 'express';
import { SpeechError } from '@platform/errors';
import { API_KEY_SCOPES } from '@platform/oauth-resource';

const API_KEY_NAME_MAX = 100;
const API_KEY_PAGE_DEFAULT = 20;
const API_KEY_PAGE_MAX = 100;
const KEY_ID = /^key_[0-9a-f]{16}$/;

const bad = (message: string) => new SpeechError(400, 'bad_request', message);

/** `POST /v1/api-keys` body: `{name, scopes?}`; `scopes` a non-empty subset of API_KEY_SCOPES (default all). */
export function parseNewApiKey(body: unknown): { name: string; scopes?: string[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw bad('The body must be a JSON object {name, scopes?}.');
  const { name, scopes, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw bad(`Unknown field ${JSON.stringify(unknown[0]!.slice(0, 40))}; a key has name and scopes.`);
  if (typeof name !== 'string' || name.trim().length === 0 || name.trim().length > API_KEY_NAME_MAX) {
    throw bad(`name must be a string of 1 to ${API_KEY_NAME_MAX} characters.`);
  }
  if (scopes === undefined) return { name: name.trim() };
  const allowed: readonly string[] = API_KEY_SCOPES;
  if (
    !Array.isArray(scopes) ||
    scopes.length === 0 ||
    scopes.some((s) => typeof s !== 'string' || !allowed.includes(s)) ||
    new Set(scopes).size !== scopes.length
  ) {
    throw bad(`scopes must be a non-empty list of distinct values from: ${API_KEY_SCOPES.join(', ')}.`);
  }
  return { name: name.trim(), scopes: scopes as string[] };
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw bad(`${name} must be given once`);
  return value;
}

/** `GET /v1/api-keys?page_size=1..100&start_after_key_id=key_…`. */
export function parseKeyPage(req: Request): { pageSize: number; startAfter?: string } {
  const raw = single(req.query.page_size, 'page_size');
  let pageSize = API_KEY_PAGE_DEFAULT;
  if (raw !== undefined) {
    if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > API_KEY_PAGE_MAX)
      throw bad(`page_size must be an integer from 1 to ${API_KEY_PAGE_MAX}`);
    pageSize = Number(raw);
  }
  const startAfter = single(req.query.start_after_key_id, 'start_after_key_id');
  if (startAfter !== undefined && !KEY_ID.test(startAfter)) throw bad('start_after_key_id is not a key id');
  return { pageSize, ...(startAfter ? { startAfter } : {}) };
}

/** A key id in a path; anything else names no key (404, as another account's key). */
export function isKeyId(value: unknown): value is string {
  return typeof value === 'string' && KEY_ID.test(value);
}
