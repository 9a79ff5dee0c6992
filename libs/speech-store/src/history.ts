import type mongoose from 'mongoose';
import { escapeRegExp } from '@platform/stores';
import { deleteFile, putFile } from './gridfs';
import { readHistoryAudio } from './history-batch';
import { isPlausibleId, newId } from './ids';
import type { HistoryState } from '@platform/speech-jobs';
import type { HistoryDoc } from './documents';
import type { SpeechStore } from './store';

/**
 * What `recordHistory` stores: a generation of an account. The pipeline's `HistoryRecord`
 * (libs/speech-jobs) becomes one in `createStoreHooks`.
 */
export interface HistoryItemInput {
  accountId: string;
  /** The synthesis job; a job has at most one item however often this is called (see `recordHistory`). */
  jobId: string;
  /** The id to give the item (the pipeline may choose it up front); default a new one. */
  historyItemId?: string;
  /** When the generation happened; default now. */
  createdAtMs?: number;
  voiceId: string;
  voiceName: string;
  modelId?: string | null;
  text: string;
  /** Characters the request asked for (`character_count_from_request`). */
  characterCount: number;
  /** Media type of the audio, e.g. `audio/mpeg`. */
  contentType: string;
  state: HistoryState;
  settings: { stability: number; similarity_boost: number };
  /** The exact bytes delivered (required for `complete`); for failed or cancelled jobs what was produced, if any. */
  audio?: Buffer;
}

function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}

const unsuccessful = (state: HistoryState) => state !== 'complete';

/**
 * Whether `record` would change `item` (see `recordHistory`): an unsuccessful record replaces a
 * complete item; an unsuccessful record with audio fills an unsuccessful item without audio.
 */
function changes(item: HistoryDoc, record: HistoryItemInput): boolean {
  if (!unsuccessful(record.state)) return false;
  if (!unsuccessful(item.state)) return true;
  return record.audio !== undefined && item.audioFileId === null;
}

/**
 * Records a generation: one item per job id (unique index), whoever records it and in whatever
 * order. The worker records each job it ran when it ends; the gateway records a job whose client
 * did not get the whole audio (worker dead, job failed, client gone). When a second record of a
 * job arrives, the item already there stays, except:
 *
 * - a `failed` or `cancelled` record replaces a `complete` item, audio included (the gateway's
 *   records have none). Such a generation was settled at 0: the item must not say it was charged,
 *   nor keep the whole audio free of charge;
 * - a `failed` or `cancelled` record with audio gives it to a `failed` or `cancelled` item that has
 *   none (the worker's partial audio joins the gateway's earlier record of a cancelled job).
 *
 * So a `complete` record never replaces anything, and of two unsuccessful records the first state
 * stays. Each rule is one conditional single-document update, so concurrent records end the same
 * whichever lands first. Audio written for a record that changes nothing is removed again.
 */
export async function recordHistory(store: SpeechStore, record: HistoryItemInput): Promise<HistoryDoc> {
  const { History } = store.models;
  const existing = await History.findOne({ jobId: record.jobId }).lean<HistoryDoc>();
  if (existing && !changes(existing, record)) return existing;
  const id = existing?._id ?? record.historyItemId ?? newId();
  const audioFileId = record.audio ? await putFile(store.audio, `${id}`, record.audio, record.contentType) : null;
  let result: { item: HistoryDoc; replacedAudio: mongoose.Types.ObjectId | null } | null = null;
  try {
    const created = existing ? null : await createItem(store, id, record, audioFileId);
    result = created ? { item: created, replacedAudio: null } : await mergeInto(store, record, audioFileId);
  } finally {
    // Our audio is kept only if the item now refers to it.
    if (!result && audioFileId) await deleteFile(store.audio, audioFileId);
  }
  if (result) {
    if (result.replacedAudio) await deleteFile(store.audio, result.replacedAudio);
    return result.item;
  }
  const item = await History.findOne({ jobId: record.jobId }).lean<HistoryDoc>();
  if (!item) throw new Error(`the history item of job ${record.jobId} vanished while being recorded`);
  return item;
}

/** Inserts the job's item; null when the job has one already (unique index on `jobId`). */
async function createItem(
  store: SpeechStore,
  id: string,
  record: HistoryItemInput,
  audioFileId: mongoose.Types.ObjectId | null,
): Promise<HistoryDoc | null> {
  const now = record.createdAtMs ?? store.now();
  try {
    const doc = await store.models.History.create({
      _id: id,
      accountId: record.accountId,
      jobId: record.jobId,
      voiceId: record.voiceId,
      voiceName: record.voiceName,
      modelId: record.modelId ?? null,
      text: record.text,
      dateUnix: Math.floor(now / 1000),
      createdAtMs: now,
      characterCount: record.characterCount,
      contentType: record.contentType,
      state: record.state,
      settings: { stability: record.settings.stability, similarity_boost: record.settings.similarity_boost },
      audioFileId,
      audioBytes: record.audio?.length ?? 0,
    });
    return doc.toObject<HistoryDoc>();
  } catch (err) {
    if (isDuplicateKey(err)) return null;
    throw err;
  }
}

/**
 * Applies an unsuccessful record to the job's existing item by the rules of `recordHistory`, each
 * rule one conditional update. Null when it changes nothing; else the item as it is now, and the
 * audio it no longer refers to.
 */
async function mergeInto(
  store: SpeechStore,
  record: HistoryItemInput,
  audioFileId: mongoose.Types.ObjectId | null,
): Promise<{ item: HistoryDoc; replacedAudio: mongoose.Types.ObjectId | null } | null> {
  if (!unsuccessful(record.state)) return null;
  const { History } = store.models;
  const audio = { audioFileId, audioBytes: record.audio?.length ?? 0 };
  // The item as it was (new: false), so the complete audio it held can be removed.
  const replaced = await History.findOneAndUpdate(
    { jobId: record.jobId, state: 'complete' },
    { $set: { state: record.state, ...audio } },
    { new: false },
  ).lean<HistoryDoc>();
  if (replaced) {
    return {
      item: { ...replaced, state: record.state, ...audio },
      replacedAudio: (replaced.audioFileId as mongoose.Types.ObjectId | null) ?? null,
    };
  }
  if (!audioFileId) return null;
  const filled = await History.findOneAndUpdate(
    { jobId: record.jobId, state: { $in: ['failed', 'cancelled'] }, audioFileId: null },
    { $set: audio },
    { new: true },
  ).lean<HistoryDoc>();
  return filled ? { item: filled, replacedAudio: null } : null;
}

/**
 * The item of a job whose reservation was given back unsettled (`releaseStaleReservations`): a `complete`
 * item becomes `failed` and loses its audio, as when the gateway records a failure over the worker's
 * `complete` record (`recordHistory`). Items in any other state, or none, stay as they are.
 */
export async function failUnsettledItem(store: SpeechStore, jobId: string): Promise<void> {
  const replaced = await store.models.History.findOneAndUpdate(
    { jobId, state: 'complete' },
    { $set: { state: 'failed', audioFileId: null, audioBytes: 0 } },
    { new: false },
  ).lean<HistoryDoc>();
  if (replaced?.audioFileId) await deleteFile(store.audio, replaced.audioFileId as mongoose.Types.ObjectId);
}

export const HISTORY_PAGE_DEFAULT = 100;
export const HISTORY_PAGE_MAX = 1000;

export interface HistoryPageQuery {
  accountId: string;
  pageSize: number;
  startAfterId?: string;
  voiceId?: string;
  modelId?: string;
  /** Newest first (`desc`, the default) or oldest first. */
  direction?: 'asc' | 'desc';
  /** Created at or after this time (ms), and before this one. */
  dateAfterMs?: number;
  dateBeforeMs?: number;
  /** Case-insensitive substring of the text or the voice's name. */
  search?: string;
}

export interface HistoryPage {
  items: HistoryDoc[];
  hasMore: boolean;
  /** Id of the last item of this page (the cursor for the next), null for an empty page. */
  lastId: string | null;
}

/** Thrown when `start_after_history_item_id` names no item of the account. */
export class UnknownCursorError extends Error {
  constructor() {
    super('start_after_history_item_id does not name a history item of this account');
    this.name = 'UnknownCursorError';
  }
}

/**
 * Newest first (or oldest first); the cursor is the last item id of the previous page (keyset
 * paging, stable under inserts). Filters by voice, model, creation time and text; each query runs
 * on an index that starts with the account (documents.ts), by voice or by model when filtered so.
 */
export async function listHistory(store: SpeechStore, query: HistoryPageQuery): Promise<HistoryPage> {
  const { History } = store.models;
  const filter: Record<string, unknown> = { accountId: query.accountId };
  if (query.voiceId !== undefined) filter.voiceId = query.voiceId;
  if (query.modelId !== undefined) filter.modelId = query.modelId;
  if (query.dateAfterMs !== undefined || query.dateBeforeMs !== undefined) {
    filter.createdAtMs = {
      ...(query.dateAfterMs !== undefined ? { $gte: query.dateAfterMs } : {}),
      ...(query.dateBeforeMs !== undefined ? { $lt: query.dateBeforeMs } : {}),
    };
  }
  if (query.search !== undefined) {
    const regex = escapeRegExp(query.search);
    filter.$and = [
      { $or: [{ text: { $regex: regex, $options: 'i' } }, { voiceName: { $regex: regex, $options: 'i' } }] },
    ];
  }
  const sign = query.direction === 'asc' ? 1 : -1;
  if (query.startAfterId !== undefined) {
    const cursor = isPlausibleId(query.startAfterId)
      ? await History.findOne(
          { _id: query.startAfterId, accountId: query.accountId },
          { createdAtMs: 1 },
        ).lean<HistoryDoc>()
      : null;
    if (!cursor) throw new UnknownCursorError();
    const op = sign === 1 ? '$gt' : '$lt';
    filter.$or = [
      { createdAtMs: { [op]: cursor.createdAtMs } },
      { createdAtMs: cursor.createdAtMs, _id: { [op]: cursor._id } },
    ];
  }
  const docs = await History.find(filter)
    .sort({ createdAtMs: sign, _id: sign })
    .limit(query.pageSize + 1)
    .lean<HistoryDoc[]>();
  const items = docs.slice(0, query.pageSize);
  return { items, hasMore: docs.length > query.pageSize, lastId: items.at(-1)?._id ?? null };
}

export async function getHistoryItem(store: SpeechStore, accountId: string, id: string): Promise<HistoryDoc | null> {
  if (!isPlausibleId(id)) return null;
  return store.models.History.findOne({ _id: id, accountId }).lean<HistoryDoc>();
}

export async function getHistoryAudio(
  store: SpeechStore,
  accountId: string,
  id: string,
): Promise<{ item: HistoryDoc; bytes: Buffer } | null> {
  const item = await getHistoryItem(store, accountId, id);
  const bytes = item ? await readHistoryAudio(store, item) : null;
  return item && bytes ? { item, bytes } : null;
}

/** Removes the item, then its audio; false when the account has no such item. */
export async function deleteHistoryItem(store: SpeechStore, accountId: string, id: string): Promise<boolean> {
  if (!isPlausibleId(id)) return false;
  const doc = await store.models.History.findOneAndDelete({ _id: id, accountId }).lean<HistoryDoc>();
  if (!doc) return false;
  if (doc.audioFileId) await deleteFile(store.audio, doc.audioFileId as mongoose.Types.ObjectId);
  return true;
}
