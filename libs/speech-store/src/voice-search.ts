import type { FilterQuery } from 'mongoose';
import type { VoiceDoc } from './documents';
import { escapeRegExp } from '@platform/stores';
import type { PremadeVoice } from './premade';
import type { SpeechStore } from './store';
import type { StoredVoice } from './voices';

export type VoiceSortField = 'created_at_unix' | 'name';
export type SortDirection = 'asc' | 'desc';
export type VoiceCategory = 'premade' | 'cloned';

/** The label filters of the hosted API's voice search, by the label key they read. */
export const SEARCH_LABELS = ['gender', 'age', 'accent', 'language', 'use_case'] as const;
export type SearchLabel = (typeof SEARCH_LABELS)[number];

/** Where the previous page ended: the sort key of its last voice, and that voice's id (the tie-break). */
export interface VoiceSearchCursor {
  key: string | number;
  voiceId: string;
}

export interface VoiceSearchQuery {
  accountId: string;
  pageSize: number;
  /** Case-insensitive substring of the name, the description, a label value or the category. */
  search?: string;
  /** The categories that may match (from `voice_type` and `category`); empty → nothing matches. */
  categories: readonly VoiceCategory[];
  /** Each label filter matches a voice whose label equals (case-insensitively) one of the values. */
  labels?: Partial<Record<SearchLabel, readonly string[]>>;
  voiceIds?: readonly string[];
  sort: VoiceSortField;
  direction: SortDirection;
  after?: VoiceSearchCursor;
}

export interface VoiceSearchPage {
  voices: StoredVoice[];
  hasMore: boolean;
  /** Voices matching the query on all pages. */
  totalCount: number;
  /** The cursor of the next page; null on the last one. */
  next: VoiceSearchCursor | null;
}

interface Candidate {
  voice: StoredVoice;
  key: string | number;
  voiceId: string;
}

const exactly = (value: string) => new RegExp(`^${escapeRegExp(value)}$`, 'i');

/**
 * Strings compare as MongoDB compares them (binary UTF-8), so the premade voices (filtered here)
 * and the cloned ones (filtered by MongoDB) interleave in one order.
 */
function compareKeys(a: Candidate | VoiceSearchCursor, b: Candidate | VoiceSearchCursor): number {
  const byKey =
    typeof a.key === 'number' && typeof b.key === 'number'
      ? a.key - b.key
      : Buffer.compare(Buffer.from(String(a.key)), Buffer.from(String(b.key)));
  return byKey !== 0 ? byKey : Buffer.compare(Buffer.from(a.voiceId), Buffer.from(b.voiceId));
}

/** Premade voices have no creation time: they sort as the oldest (0). */
function premadeKey(voice: PremadeVoice, sort: VoiceSortField): string | number {
  return sort === 'name' ? voice.name : 0;
}

function clonedKey(doc: VoiceDoc, sort: VoiceSortField): string | number {
  return sort === 'name' ? doc.name : new Date(doc.createdAt).getTime();
}

function premadeMatches(voice: PremadeVoice, query: VoiceSearchQuery): boolean {
  if (!query.categories.includes('premade')) return false;
  if (query.voiceIds && !query.voiceIds.includes(voice.voiceId)) return false;
  for (const label of SEARCH_LABELS) {
    const wanted = query.labels?.[label];
    const value = voice.labels[label];
    if (wanted && !(value !== undefined && wanted.some((w) => exactly(w).test(value)))) return false;
  }
  if (query.search) {
    const term = new RegExp(escapeRegExp(query.search), 'i');
    const texts = [voice.name, voice.description ?? '', 'premade', ...Object.values(voice.labels)];
    if (!texts.some((t) => term.test(t))) return false;
  }
  return true;
}

/**
 * The MongoDB filter of the account's cloned voices that match `query`, without the cursor. Its
 * first condition is `accountId`, the prefix of both sort indexes (documents.ts), so a search reads
 * one account's voices in index order and never sorts in memory.
 */
function clonedFilter(query: VoiceSearchQuery): FilterQuery<VoiceDoc> | null {
  if (!query.categories.includes('cloned')) return null;
  const and: FilterQuery<VoiceDoc>[] = [];
  if (query.voiceIds) and.push({ _id: { $in: [...query.voiceIds] } });
  for (const label of SEARCH_LABELS) {
    const wanted = query.labels?.[label];
    if (wanted) and.push({ [`labels.${label}`]: { $in: wanted.map(exactly) } });
  }
  if (query.search && !new RegExp(escapeRegExp(query.search), 'i').test('cloned')) {
    const regex = escapeRegExp(query.search);
    and.push({
      $or: [
        { name: { $regex: regex, $options: 'i' } },
        { description: { $regex: regex, $options: 'i' } },
        {
          $expr: {
            $anyElementTrue: [
              {
                $map: {
                  input: { $objectToArray: { $ifNull: ['$labels', {}] } },
                  in: {
                    $regexMatch: {
                      input: { $convert: { input: '$$this.v', to: 'string', onError: '', onNull: '' } },
                      regex,
                      options: 'i',
                    },
                  },
                },
              },
            ],
          },
        },
      ],
    });
  }
  return { accountId: query.accountId, ...(and.length > 0 ? { $and: and } : {}) };
}

/** Voices strictly after `cursor` in the query's order. */
function afterCursor(query: VoiceSearchQuery, cursor: VoiceSearchCursor): FilterQuery<VoiceDoc> {
  const field = query.sort === 'name' ? 'name' : 'createdAt';
  const key = query.sort === 'name' ? String(cursor.key) : new Date(Number(cursor.key));
  const op = query.direction === 'asc' ? '$gt' : '$lt';
  return { $or: [{ [field]: { [op]: key } }, { [field]: key, _id: { [op]: cursor.voiceId } }] };
}

/**
 * The hosted API's voice search (`GET /v2/voices`) over the premade voices and the account's own
 * clones, in one order (`sort`, then voice id), paged by keyset: the cursor is the last voice's sort
 * key and id, so a page never repeats or skips a voice when others are added or removed meanwhile.
 */
export async function searchVoices(store: SpeechStore, query: VoiceSearchQuery): Promise<VoiceSearchPage> {
  const sign = query.direction === 'asc' ? 1 : -1;
  const ordered = (a: Candidate, b: Candidate) => sign * compareKeys(a, b);
  const premade = store.premade
    .filter((voice) => premadeMatches(voice, query))
    .map((voice): Candidate => ({
      voice: { category: 'premade', premade: voice },
      key: premadeKey(voice, query.sort),
      voiceId: voice.voiceId,
    }));
  const { after } = query;
  const premadeAfter = after ? premade.filter((c) => sign * compareKeys(c, after) > 0) : premade;

  const filter = clonedFilter(query);
  let cloned: Candidate[] = [];
  let clonedTotal = 0;
  if (filter) {
    const field = query.sort === 'name' ? 'name' : 'createdAt';
    const page = after ? { $and: [filter, afterCursor(query, after)] } : filter;
    const [docs, total] = await Promise.all([
      // The sort index, even when `voice_ids` makes the `_id` index look cheaper: a page is read in
      // order, never sorted in memory (the account's voices are few; its index range is short).
      store.models.Voice.find(page)
        .sort({ [field]: sign, _id: sign })
        .hint({ accountId: 1, [field]: 1, _id: 1 })
        .limit(query.pageSize + 1)
        .lean<VoiceDoc[]>(),
      store.models.Voice.countDocuments(filter),
    ]);
    cloned = docs.map((doc) => ({
      voice: { category: 'cloned', doc },
      key: clonedKey(doc, query.sort),
      voiceId: doc._id,
    }));
    clonedTotal = total;
  }
  const merged = [...premadeAfter, ...cloned].sort(ordered);
  const page = merged.slice(0, query.pageSize);
  const last = page.at(-1);
  const hasMore = merged.length > query.pageSize;
  return {
    voices: page.map((c) => c.voice),
    hasMore,
    totalCount: premade.length + clonedTotal,
    next: hasMore && last ? { key: last.key, voiceId: last.voiceId } : null,
  };
}
