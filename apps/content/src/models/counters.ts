import { Schema, type Connection, type Model } from 'mongoose';

/** Integer id sequences (REST post ids, comment ids): one atomic $inc per new entity. */
interface CounterDoc {
  _id: string;
  value: number;
}
const schema = new Schema<CounterDoc>({ _id: String, value: Number }, { versionKey: false, collection: 'counters' });

export type CounterModel = Model<CounterDoc>;
export function counterModel(connection: Connection): CounterModel {
  return connection.models.Counter ?? connection.model<CounterDoc>('Counter', schema);
}

export async function nextId(counters: CounterModel, name: string): Promise<number> {
  const doc = await counters
    .findOneAndUpdate({ _id: name }, { $inc: { value: 1 } }, { upsert: true, new: true })
    .lean();
  return doc!.value;
}
