import type mongoose from 'mongoose';
import { deleteFile, getFile, putFile } from './gridfs';
import { isPlausibleId, newId } from './ids';
import type { HistoryDoc, HistoryState } from './models';
import type { SpeechStore } from './store';

export interface HistoryRecord {
  accountId: string;
  /** The synthesis job; a job is recorded at most once however often this is called. */
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
  /** The exact bytes delivered; required for `complete`, absent for failed or cancelled jobs. */
  audio?: Buffer;
}

function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}

/**
 * Records a generation exactly once, keyed by job id (unique index): a retry after a crash, or a
 * second worker, finds the first record and returns it, and its own audio copy is removed.
 */
export async function recordHistory(store: SpeechStore, record: HistoryRecord): Promise<HistoryDoc> {
  const { History } = store.models;
  const existing = await History.findOne({ jobId: record.jobId }).lean<HistoryDoc>();
  if (existing) return existing;
  const id = record.historyItemId ?? newId();
  const audioFileId = record.audio ? await putFile(store.audio, `${id}`, record.audio, record.contentType) : null;
  const now = record.createdAtMs ?? store.now();
  try {
    const doc = await History.create({
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
    if (audioFileId) await deleteFile(store.audio, audioFileId);
    if (isDuplicateKey(err)) {
      const winner = await History.findOne({ jobId: record.jobId }).lean<HistoryDoc>();
      if (winner) return winner;
    }
    throw err;
  }
}

export const HISTORY_PAGE_DEFAULT = 100;
export const HISTORY_PAGE_MAX = 1000;

export interface HistoryPageQuery {
  accountId: string;
  pageSize: number;
  startAfterId?: string;
  voiceId?: string;
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

/** Newest first; the cursor is the last item id of the previous page (keyset paging, stable under inserts). */
export async function listHistory(store: SpeechStore, query: HistoryPageQuery): Promise<HistoryPage> {
  const { History } = store.models;
  const filter: Record<string, unknown> = { accountId: query.accountId };
  if (query.voiceId !== undefined) filter.voiceId = query.voiceId;
  if (query.startAfterId !== undefined) {
    const cursor = isPlausibleId(query.startAfterId)
      ? await History.findOne({ _id: query.startAfterId, accountId: query.accountId }, { createdAtMs: 1 }).lean<HistoryDoc>()
      : null;
    if (!cursor) throw new UnknownCursorError();
    filter.$or = [{ createdAtMs: { $lt: cursor.createdAtMs } }, { createdAtMs: cursor.createdAtMs, _id: { $lt: cursor._id } }];
  }
  const docs = await History.find(filter).sort({ createdAtMs: -1, _id: -1 }).limit(query.pageSize + 1).lean<HistoryDoc[]>();
  const items = docs.slice(0, query.pageSize);
  return { items, hasMore: docs.length > query.pageSize, lastId: items.at(-1)?._id ?? null };
}

export async function getHistoryItem(store: SpeechStore, accountId: string, id: string): Promise<HistoryDoc | null> {
  if (!isPlausibleId(id)) return null;
  return store.models.History.findOne({ _id: id, accountId }).lean<HistoryDoc>();
}

export async function getHistoryAudio(store: SpeechStore, accountId: string, id: string): Promise<{ item: HistoryDoc; bytes: Buffer } | null> {
  const item = await getHistoryItem(store, accountId, id);
  if (!item?.audioFileId) return null;
  const bytes = await getFile(store.audio, item.audioFileId as mongoose.Types.ObjectId);
  return bytes ? { item, bytes } : null;
}

/** Removes the item, then its audio; false when the account has no such item. */
export async function deleteHistoryItem(store: SpeechStore, accountId: string, id: string): Promise<boolean> {
  if (!isPlausibleId(id)) return false;
  const doc = await store.models.History.findOneAndDelete({ _id: id, accountId }).lean<HistoryDoc>();
  if (!doc) return false;
  if (doc.audioFileId) await deleteFile(store.audio, doc.audioFileId as mongoose.Types.ObjectId);
  return true;
}
