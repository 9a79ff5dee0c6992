import { Schema, type Connection, type Model } from 'mongoose';
import type { ContentEvent } from '@platform/events';

/**
 * Outbox without multi-document transactions. It relies on single-document atomicity only: the
 * entity update of step 2 is conditional on the `rev` the writer read, which MongoDB applies
 * atomically, and so does the stack's patched FerretDB (docs/architecture.md, "Store constraints").
 *
 * A write happens in three steps:
 *   1. insert the event into `outbox` with state `pending` (a single-document insert),
 *   2. write the entity; the same document update (matching only the version the writer read)
 *      records the event id in the entity's `eventIds`,
 *   3. mark the outbox record `ready` (or delete it when step 2 failed).
 * The relay publishes `ready` records. A `pending` record older than a timeout (the writer
 * crashed between steps) is resolved by looking at the entity: its id in `eventIds` means the
 * write happened (publish), otherwise it did not (discard, only if the record is still pending).
 * `eventIds` is bounded, so that rule needs one more step, taken before step 2 by a write that
 * removes ids from the entity (an update of a full `eventIds` drops the oldest; a soft delete
 * leads to the document's removal):
 *   0. mark the outbox records of the ids it removes `ready` (their writes happened: the ids are
 *      in the version the writer read, and step 2 matches only that version).
 * So an id leaves its entity only after its record stopped being pending, and a pending record
 * whose id is not in its entity belongs to a write that did not happen, however many writes
 * followed. A failed write never publishes and a successful one always does. Per-entity order:
 * records are ordered by (`at`, `n`) and an entity's later events wait while an earlier one is
 * pending.
 */
export interface EntityEventFields {
  /** Ids of the last events committed with this entity (bounded). */
  eventIds: string[];
  /** Soft delete: the document stays until its `*.deleted` event is published. */
  deletedAt: Date | null;
  /** Revision, incremented by every write (optimistic concurrency where the server honours it). */
  rev: number;
}

export const entityEventSchemaFields = {
  eventIds: { type: [String], default: [] },
  deletedAt: { type: Date, default: null },
  rev: { type: Number, default: 0 },
};

export const EVENT_IDS_KEPT = 50;

/** The `eventIds` value after appending `eventId` to what the writer read. */
export function withEventId(current: readonly string[] | undefined, eventId: string): string[] {
  return [...(current ?? []).slice(-(EVENT_IDS_KEPT - 1)), eventId];
}

/** The ids that appending one id to `current` drops (`withEventId` keeps the others). */
export function idsDroppedByAppend(current: readonly string[] | undefined): string[] {
  const list = current ?? [];
  return list.slice(0, Math.max(0, list.length - (EVENT_IDS_KEPT - 1)));
}

export type OutboxState = 'pending' | 'ready';
export type OutboxEntityType = 'users' | 'posts' | 'comments';

export interface OutboxDoc {
  _id: string;
  entityType: OutboxEntityType;
  entityId: string;
  state: OutboxState;
  at: Date;
  /** Tie-breaker within one millisecond: a per-process counter (same-entity writes from one process keep their order). */
  n: number;
  event: ContentEvent;
}

const schema = new Schema<OutboxDoc>(
  {
    _id: { type: String, required: true },
    entityType: { type: String, required: true },
    entityId: { type: String, required: true },
    state: { type: String, required: true },
    at: { type: Date, required: true },
    n: { type: Number, required: true },
    event: { type: Schema.Types.Mixed, required: true },
  },
  { versionKey: false, collection: 'outbox', minimize: false },
);
schema.index({ at: 1, n: 1 });

export type OutboxModel = Model<OutboxDoc>;
export function outboxModel(connection: Connection): OutboxModel {
  return connection.models.Outbox ?? connection.model<OutboxDoc>('Outbox', schema);
}
