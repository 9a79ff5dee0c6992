import type { Request } from 'express';
import { API_KEY_ID, API_KEY_PAGE_DEFAULT, apiKeyPageQuery, newApiKeyBody } from '@platform/contracts';
import { readSpeechInput } from '../speech-input';

/** `POST /v1/api-keys` body: `{name, scopes?}` (name trimmed; no scopes: every scope). */
export function parseNewApiKey(body: unknown): { name: string; scopes?: string[] } {
  const { name, scopes } = readSpeechInput(newApiKeyBody, body);
  return { name, ...(scopes !== undefined ? { scopes } : {}) };
}

/** `GET /v1/api-keys?page_size=1..100&start_after_key_id=key_…`. */
export function parseKeyPage(req: Request): { pageSize: number; startAfter?: string } {
  const query = readSpeechInput(apiKeyPageQuery, req.query);
  const pageSize = query.page_size !== undefined ? Number(query.page_size) : API_KEY_PAGE_DEFAULT;
  return { pageSize, ...(query.start_after_key_id ? { startAfter: query.start_after_key_id } : {}) };
}

/** A key id in a path; anything else names no key (404, as another account's key). */
export function isKeyId(value: unknown): value is string {
  return typeof value === 'string' && API_KEY_ID.test(value);
}
