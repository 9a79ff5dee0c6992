import { Schema, type Connection, type Model } from 'mongoose';

/** Integer id sequences (REST post ids, comment ids): a document per sequence, its last id taken. */
interface CounterDoc {
  _id: string;
  value: number;
}
const schema = new Schema<CounterDoc>({ _id: String, value: Number }, { versionKey: false, collection: 'counters' });

export type CounterModel = Model<CounterDoc>;
export function counterModel(connection: Connection): CounterModel {
  return connection.models.Counter ?? connection.model<CounterDoc>('Counter', schema);
}

/** Ids a process takes from a sequence at once. */
export const ID_BLOCK_SIZE = 20;

export interface IdSequences {
  /** The next id of the sequence `name` (1, 2, … in one process; unique across processes). */
  next(name: string): Promise<number>;
}

interface Block {
  next: number;
  end: number;
  taking?: Promise<void>;
}

/**
 * A process takes `blockSize` ids of a sequence with one atomic `$inc` and hands them out in order
 * (the "hi/lo" scheme of ORMs and database sequence caches), so most creates cost no MongoDB round
 * trip for their id: on the write path each command is a socket write and a wake-up of mongod.
 * Ids stay unique across replicas and restarts, but are not dense: a process that stops leaves the
 * rest of its block unused, and two replicas' ids interleave out of creation order (which is what
 * `createdAt` orders by).
 */
export function idSequences(counters: CounterModel, blockSize = ID_BLOCK_SIZE): IdSequences {
  const blocks = new Map<string, Block>();
  async function take(name: string, block: Block): Promise<void> {
    const doc = await counters
      .findOneAndUpdate({ _id: name }, { $inc: { value: blockSize } }, { upsert: true, new: true })
      .lean();
    block.end = doc!.value + 1;
    block.next = doc!.value - blockSize + 1;
  }
  return {
    async next(name) {
      let block = blocks.get(name);
      if (!block) {
        block = { next: 1, end: 1 };
        blocks.set(name, block);
      }
      const current = block;
      // Callers that find the block spent wait for one taking of the next, then try again.
      while (current.next >= current.end) {
        current.taking ??= take(name, current).finally(() => (current.taking = undefined));
        await current.taking;
      }
      return current.next++;
    },
  };
}
