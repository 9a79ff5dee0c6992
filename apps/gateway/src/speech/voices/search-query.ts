import type { Request } from 'express';
import {
  VOICE_SEARCH_PAGE_DEFAULT,
  voiceSearchQuery,
  type VoiceSearchCategory,
  type VoiceType,
} from '@platform/contracts';
import type {
  SearchLabel,
  SortDirection,
  VoiceCategory,
  VoiceSearchCursor,
  VoiceSearchQuery,
  VoiceSortField,
} from '@platform/speech-store';
import { badRequest } from '../speech-errors';
import { readSpeechInput } from '../speech-input';

const BOTH: readonly VoiceCategory[] = ['premade', 'cloned'];

/**
 * `voice_type` as the hosted API defines it, over the voices this platform has: the premade ones
 * (`default`) and the account's own clones (`personal`). There are no community, workspace or
 * collection voices here, so those types match nothing of their own.
 */
const VOICE_TYPES: Record<VoiceType, readonly VoiceCategory[]> = {
  personal: ['cloned'],
  community: [],
  default: ['premade'],
  workspace: [],
  'non-default': ['cloned'],
  'non-community': ['cloned'],
  saved: ['cloned'],
};

/** `category`: `generated`, `professional` and `high_quality` voices are not made here. */
const CATEGORIES: Record<VoiceSearchCategory, readonly VoiceCategory[]> = {
  premade: ['premade'],
  cloned: ['cloned'],
  generated: [],
  professional: [],
  high_quality: [],
};

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

/** The search parameters (the contract's `voiceSearchQuery`) as the speech store's search. */
export function parseSearchQuery(req: Request, accountId: string): VoiceSearchQuery {
  const q = readSpeechInput(voiceSearchQuery, req.query);
  const pageSize = q.page_size !== undefined ? Number(q.page_size) : VOICE_SEARCH_PAGE_DEFAULT;
  const sort = q.sort ?? 'created_at_unix';
  const direction = q.sort_direction ?? (sort === 'name' ? 'asc' : 'desc');
  let categories = BOTH.filter(
    (c) =>
      (q.voice_type ? VOICE_TYPES[q.voice_type].includes(c) : true) &&
      (q.category ? CATEGORIES[q.category].includes(c) : true),
  );
  // Professional fine-tuning, collections and studio-quality voices do not exist here.
  if (q.fine_tuning_state !== undefined || q.collection_id !== undefined || /^true$/i.test(q.high_quality ?? ''))
    categories = [];

  // `language` and `use_cases` match any of several values; the other labels take one.
  const given: Record<SearchLabel, string | string[] | undefined> = {
    gender: q.gender,
    age: q.age,
    accent: q.accent,
    language: q.language,
    use_case: q.use_cases,
  };
  const labels: Partial<Record<SearchLabel, string[]>> = {};
  for (const [label, values] of Object.entries(given) as [SearchLabel, string | string[] | undefined][])
    if (values !== undefined) labels[label] = typeof values === 'string' ? [values] : values;

  const token = q.next_page_token ? decodePageToken(q.next_page_token) : undefined;
  if (token && (token.sort !== sort || token.direction !== direction))
    throw badRequest('next_page_token belongs to another sort or sort_direction');
  return {
    accountId,
    pageSize,
    categories,
    sort,
    direction,
    ...(q.search ? { search: q.search } : {}),
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    ...(q.voice_ids ? { voiceIds: q.voice_ids } : {}),
    ...(token ? { after: token.cursor } : {}),
  };
}
