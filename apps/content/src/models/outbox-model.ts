import { Schema, type Connection, type Model } from 'mongoose';
import type { ContentEvent } from '@platform/events';

/**
 * The transactional outbox: a write stores its entity change and the event describing it in one
 * MongoDB transaction (outbox/write-with-events.ts), so a committed write always has its record
 * and a failed or aborted one has none. The relay (outbox/relay.ts) publishes the records and
 * deletes them once Kafka acknowledged them.
 *
 * `rev` is the entity's revision after the write, incremented in the same transaction. Two
 * transactions writing one entity conflict on its document, so they commit one after the other,
 * and a later commit always carries the higher revision: per entity, revision order is commit order.
 */
export type OutboxEntityType = 'users' | 'posts' | 'comments';

export interface OutboxDoc {
  /** The event id. */
  _id: string;
  entityType: OutboxEntityType;
  entityId: string;
  rev: number;
  event: ContentEvent;
  /**
   * W3C Trace Context (`traceparent`, `tracestate`) of the write, so the relay's publish and the
   * gateway's delivery join its trace. Absent when content does not trace.
   */
  trace?: Record<string, string>;
  /** The writing process (`ContentDeps.outboxOrigin`), whose relay was woken by the commit itself. */
  origin?: string;
}

const schema = new Schema<OutboxDoc>(
  {
    _id: { type: String, required: true },
    entityType: { type: String, required: true },
    entityId: { type: String, required: true },
    rev: { type: Number, required: true },
    event: { type: Schema.Types.Mixed, required: true },
    trace: { type: Schema.Types.Mixed },
    origin: { type: String },
  },
  { versionKey: false, collection: 'outbox', minimize: false },
);
// The relay reads in this order; unique, so two records can never claim one revision of an entity.
schema.index({ entityType: 1, entityId: 1, rev: 1 }, { unique: true });

export type OutboxModel = Model<OutboxDoc>;
export function outboxModel(connection: Connection): OutboxModel {
  return connection.models.Outbox ?? connection.model<OutboxDoc>('Outbox', schema);
}
