import type { ContentEvent } from '@platform/events';
import { provesNothingWritten } from './write-outcome';
import { idsDroppedByAppend, withEventId, type OutboxEntityType, type OutboxModel } from '../models/outbox-fields';

let counter = 0;

/** The entity version a write replaces (absent for a create). */
export interface ReplacedVersion {
  /** `eventIds` as the writer read it; the write must match only that version (`rev`). */
  eventIds: readonly string[];
  /** A soft delete: the relay removes the document, and every id with it, once the deletion is out. */
  deletes?: boolean;
}

/**
 * Steps 0–3 of the outbox protocol (models/outbox-fields.ts) around an entity write.
 * `write` stores the `eventIds` it is handed (for a create: the event's id alone) and returns
 * false when it matched nothing (the entity changed or vanished meanwhile).
 */
export async function writeWithEvent<T>(
  outbox: OutboxModel,
  entityType: OutboxEntityType,
  event: ContentEvent,
  write: (eventIds: string[]) => Promise<T | false>,
  replaced?: ReplacedVersion,
): Promise<T | false> {
  // Step 0: ids this write removes from the entity belong to writes that happened; their
  // records must not be pending once the ids are gone, or the relay would discard them.
  const removed = replaced?.deletes ? [...replaced.eventIds] : idsDroppedByAppend(replaced?.eventIds);
  if (removed.length > 0) await outbox.updateMany({ _id: { $in: removed }, state: 'pending' }, { $set: { state: 'ready' } });
  await outbox.create({
    _id: event.id,
    entityType,
    entityId: String(event.data.localId),
    state: 'pending',
    at: new Date(event.time),
    n: (counter = (counter + 1) % Number.MAX_SAFE_INTEGER),
    event,
  });
  let result: T | false;
  try {
    result = await write(withEventId(replaced?.eventIds, event.id));
  } catch (err) {
    // Only a failure that proves nothing was written removes the record; after any other (the
    // server may have applied the write before the connection broke) it stays pending, and the
    // relay publishes it or not by what the entity holds.
    if (provesNothingWritten(err)) await outbox.deleteOne({ _id: event.id }).catch(() => undefined);
    throw err;
  }
  if (result === false) {
    await outbox.deleteOne({ _id: event.id }).catch(() => undefined);
    return false;
  }
  // If this fails the record stays pending and the relay resolves it from the entity's eventIds.
  await outbox.updateOne({ _id: event.id }, { $set: { state: 'ready' } }).catch(() => undefined);
  return result;
}
