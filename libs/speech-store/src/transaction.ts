import type { ClientSession } from 'mongoose';
import type { SpeechStore } from './store';

/**
 * Runs `work` as one multi-document transaction on the speech database: everything it writes
 * through `session` is committed together or not at all. Two transactions that write the same
 * document conflict, and the driver runs the loser's `work` again on the state the winner left
 * (a transient error), so `work` must do nothing but reads and writes through `session`.
 */
export async function inTransaction<T>(store: SpeechStore, work: (session: ClientSession) => Promise<T>): Promise<T> {
  return store.connection.transaction(work, { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } });
}
