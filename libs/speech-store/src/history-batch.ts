import type mongoose from 'mongoose';
import type { HistoryDoc } from './documents';
import { getFile } from './gridfs';
import { isPlausibleId } from './ids';
import type { SpeechStore } from './store';

/**
 * The account's history items among `ids` (one query on `_id`), in the order of `ids`; an id that
 * is not the account's item is absent from the result.
 */
export async function getHistoryItems(
  store: SpeechStore,
  accountId: string,
  ids: readonly string[],
): Promise<HistoryDoc[]> {
  const plausible = ids.filter(isPlausibleId);
  if (plausible.length === 0) return [];
  const docs = await store.models.History.find({ _id: { $in: plausible }, accountId }).lean<HistoryDoc[]>();
  const byId = new Map(docs.map((d) => [d._id, d]));
  return plausible.flatMap((id) => byId.get(id) ?? []);
}

/** The stored audio of an item (from `getHistoryItems`), or null when it has none. */
export async function readHistoryAudio(store: SpeechStore, item: HistoryDoc): Promise<Buffer | null> {
  if (!item.audioFileId) return null;
  return getFile(store.audio, item.audioFileId as mongoose.Types.ObjectId);
}
