import type { ContentEvent } from '@platform/events';
import type { OutboxEntityType, OutboxModel } from '../models/outbox-fields';

let counter = 0;

/**
 * Steps 1–3 of the outbox protocol (models/outbox-fields.ts) around an entity write.
 * `write` returns false when it matched nothing (the entity changed or vanished meanwhile).
 */
export async function writeWithEvent<T>(
  outbox: OutboxModel,
  entityType: OutboxEntityType,
  event: ContentEvent,
  write: () => Promise<T | false>,
): Promise<T | false> {
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
    result = await write();
  } catch (err) {
    await outbox.deleteOne({ _id: event.id }).catch(() => undefined);
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
