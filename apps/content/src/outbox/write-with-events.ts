import type { ClientSession } from 'mongoose';
import type { ContentEvent } from '@platform/events';
import { traceCarrier } from '@platform/tracing';
import type { ContentDeps } from '../domain/deps';
import { insertBuilt, type Models, type OutboxDoc, type OutboxEntityType } from '../models';

/**
 * The transactional outbox's write side: an entity change and the records of the events it
 * publishes commit in one MongoDB transaction, or neither does. A failed write (a validation
 * error, a refused or aborted transaction, a crash before the commit) leaves no record; a
 * committed one always has its records. `withTransaction` runs `work` again on a
 * TransientTransactionError (a write conflict with a concurrent transaction on the same entity)
 * and retries a commit whose outcome is unknown, so `work` must do nothing outside the session.
 */
export interface EntityEvent {
  entityType: OutboxEntityType;
  entityId: string | number;
  /** The entity's revision after this write, stored by the same transaction. */
  rev: number;
  event: ContentEvent;
}

interface Written<T> {
  result: T;
  events: EntityEvent[];
}

/** Reads in the transaction see one snapshot; the commit waits for a majority (the relay reads majority-committed data). */
const TRANSACTION_OPTIONS = { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } } as const;

export async function writeWithEvents<T>(
  deps: Pick<ContentDeps, 'models' | 'outboxCommitted' | 'outboxOrigin'>,
  work: (session: ClientSession) => Promise<Written<T>>,
): Promise<T> {
  const { outbox } = deps.models;
  let recorded = false;
  const result = await outbox.db.transaction(async (session) => {
    const written = await work(session);
    recorded = written.events.length > 0;
    if (recorded)
      await insertBuilt(
        outbox,
        written.events.map((entityEvent) => toRecord(entityEvent, deps.outboxOrigin)),
        session,
      );
    return written.result;
  }, TRANSACTION_OPTIONS);
  if (recorded) deps.outboxCommitted?.();
  return result;
}

function toRecord({ entityType, entityId, rev, event }: EntityEvent, origin: string | undefined): OutboxDoc {
  const trace = traceCarrier();
  return {
    _id: event.id,
    entityType,
    entityId: String(entityId),
    rev,
    event,
    ...(Object.keys(trace).length > 0 ? { trace } : {}),
    ...(origin === undefined ? {} : { origin }),
  };
}

/**
 * The revision a new entity starts at: 1, or past the records of an earlier entity with the same
 * id that are still in the outbox (a deleted profile is created again when its account signs in),
 * so its events follow the earlier ones'. Read in the creating transaction: any earlier write of
 * that id committed before it (it wrote the same document), so its records are in the snapshot
 * unless the relay already published them.
 */
export async function firstRevision(
  models: Models,
  session: ClientSession,
  entityType: OutboxEntityType,
  entityId: string | number,
): Promise<number> {
  const last = await models.outbox
    .findOne({ entityType, entityId: String(entityId) }, { rev: 1 })
    .sort({ rev: -1 })
    .session(session)
    .lean<Pick<OutboxDoc, 'rev'>>();
  return (last?.rev ?? 0) + 1;
}
