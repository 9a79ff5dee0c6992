import type { Request } from 'express';
import {
  SEARCH_LABELS,
  type SearchLabel,
  type SortDirection,
  type VoiceCategory,
  type VoiceSearchCursor,
  type VoiceSearchQuery,
  type VoiceSortField,
} from '@platform/speech-store';
import { badRequest } from '../speech-errors';

const SEARCH_PAGE_DEFAULT = 10;
const SEARCH_PAGE_MAX = 100;

const BOTH: readonly VoiceCategory[] = ['premade', 'cloned'];

/**
 * `voice_type` as the hosted API defines it, over the voices this platform has: the premade ones
 * (`default`) and the account's own clones (`personal`). There are no community, workspace or
 * collection voices here, so those types match nothing of their own.
 */
const VOICE_TYPES: Record<string, readonly VoiceCategory[]> = {
  personal: ['cloned'],
  community: [],
  default: ['premade'],
  workspace: [],
  'non-default': ['cloned'],
  'non-community': ['cloned'],
  saved: ['cloned'],
};

/** `category`: `generated`, `professional` and `high_quality` voices are not made here. */
const CATEGORIES: Record<string, readonly VoiceCategory[]> = {
  premade: ['premade'],
  cloned: ['cloned'],
  generated: [],
  professional: [],
  high_quality: [],
};

const FINE_TUNING_STATES = new Set([
  'draft',
  'not_verified',
  'not_started',
  'queued',
  'fine_tuning',
  'fine_tuned',
  'failed',
  'delayed',
]);

/** The query parameter as one string; repeated → 400. */
function one(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`${name} must be given once`);
  return value;
}

/** A parameter that may be repeated (`language=en&language=de`) or comma-free single. */
function many(req: Request, name: string): string[] | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  const values = (Array.isArray(value) ? value : [value]).map(String);
  if (values.length > SEARCH_PAGE_MAX || values.some((v) => v.length === 0 || v.length > 200))
    throw badRequest(`${name}: at most ${SEARCH_PAGE_MAX} values of 1 to 200 characters`);
  return values;
}

function bool(req: Request, name: string): boolean | undefined {
  const value = one(req, name);
  if (value === undefined) return undefined;
  if (/^true$/i.test(value)) return true;
  if (/^false$/i.test(value)) return false;
  throw badRequest(`${name} must be true or false`);
}

function integer(req: Request, name: string, min: number, max: number): number | undefined {
  const value = one(req, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,6}$/.test(value) || Number(value) < min || Number(value) > max)
    throw badRequest(`${name} must be an integer from ${min} to ${max}`);
  return Number(value);
}

function oneOf<T extends string>(req: Request, name: string, allowed: readonly T[]): T | undefined {
  const value = one(req, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw badRequest(`${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

interface PageToken {
  sort: VoiceSortField;
  direction: SortDirection;
  cursor: VoiceSearchCursor;
}

/** The opaque `next_page_token`: where the page ended, in the order it was read. */
export function encodePageToken(token: PageToken): string {
  return Buffer.from(JSON.stringify([token.sort, token.direction, token.cursor.key, token.cursor.voiceId])).toString(
    'base64url',
  );
}

function decodePageToken(raw: string): PageToken {
  const invalid = badRequest('next_page_token is not a token this endpoint issued');
  if (raw.length > 1024) throw invalid;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw invalid;
  const [sort, direction, key, voiceId] = parsed as unknown[];
  if (
    (sort !== 'name' && sort !== 'created_at_unix') ||
    (direction !== 'asc' && direction !== 'desc') ||
    typeof voiceId !== 'string'
  )
    throw invalid;
  if (sort === 'name' ? typeof key !== 'string' : typeof key !== 'number' || !Number.isFinite(key)) throw invalid;
  return { sort, direction, cursor: { key: key as string | number, voiceId } };
}

/**
 * The hosted API's `GET /v2/voices` parameters (the official SDKs' `voices.search`). Filters that
 * concern only voice-library sharing (`min_notice_period_days`, `include_custom_rates`,
 * `include_live_moderated`) are checked and have nothing to filter here; `include_total_count` is
 * accepted and `total_count` always answered (the JS SDK requires the field).
 */
export function parseSearchQuery(req: Request, accountId: string): VoiceSearchQuery {
  const pageSize = integer(req, 'page_size', 1, SEARCH_PAGE_MAX) ?? SEARCH_PAGE_DEFAULT;
  const sort = oneOf(req, 'sort', ['created_at_unix', 'name'] as const) ?? 'created_at_unix';
  const direction = oneOf(req, 'sort_direction', ['asc', 'desc'] as const) ?? (sort === 'name' ? 'asc' : 'desc');
  const search = one(req, 'search');
  if (search !== undefined && search.length > 200) throw badRequest('search must be at most 200 characters');

  const voiceType = oneOf(req, 'voice_type', Object.keys(VOICE_TYPES));
  const category = oneOf(req, 'category', Object.keys(CATEGORIES));
  let categories = BOTH.filter(
    (c) =>
      (voiceType ? VOICE_TYPES[voiceType]!.includes(c) : true) && (category ? CATEGORIES[category]!.includes(c) : true),
  );
  // Professional fine-tuning, collections and studio-quality voices do not exist here.
  const fineTuning = one(req, 'fine_tuning_state');
  if (fineTuning !== undefined && !FINE_TUNING_STATES.has(fineTuning))
    throw badRequest(`fine_tuning_state must be one of ${[...FINE_TUNING_STATES].join(', ')}`);
  const collection = one(req, 'collection_id');
  if (fineTuning !== undefined || collection !== undefined || bool(req, 'high_quality') === true) categories = [];
  integer(req, 'min_notice_period_days', 0, 100_000);
  bool(req, 'include_custom_rates');
  bool(req, 'include_live_moderated');
  bool(req, 'include_total_count');

  const labels: Partial<Record<SearchLabel, string[]>> = {};
  const labelParams: Record<SearchLabel, string> = {
    gender: 'gender',
    age: 'age',
    accent: 'accent',
    language: 'language',
    use_case: 'use_cases',
  };
  for (const label of SEARCH_LABELS) {
    const param = labelParams[label];
    // `language` and `use_cases` match any of several values; the other labels take one.
    const values = label === 'language' || label === 'use_case' ? many(req, param) : one(req, param);
    if (values !== undefined) labels[label] = typeof values === 'string' ? [values] : values;
  }
  const voiceIds = many(req, 'voice_ids');

  const rawToken = one(req, 'next_page_token');
  const token = rawToken ? decodePageToken(rawToken) : undefined;
  if (token && (token.sort !== sort || token.direction !== direction))
    throw badRequest('next_page_token belongs to another sort or sort_direction');
  return {
    accountId,
    pageSize,
    categories,
    sort,
    direction,
    ...(search ? { search } : {}),
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    ...(voiceIds ? { voiceIds } : {}),
    ...(token ? { after: token.cursor } : {}),
  };
}
