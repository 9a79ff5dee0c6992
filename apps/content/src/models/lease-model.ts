import { Schema, type Connection, type Model } from 'mongoose';

/** Leases held by one process at a time (the outbox relay's), kept with the data they guard. */
export interface LeaseDoc {
  _id: string;
  holder: string;
  /** Server time at which the lease lapses unless its holder renews it. */
  until: Date;
}

const schema = new Schema<LeaseDoc>(
  {
    _id: { type: String, required: true },
    holder: { type: String, required: true },
    until: { type: Date, required: true },
  },
  { versionKey: false, collection: 'leases' },
);

export type LeaseModel = Model<LeaseDoc>;
export function leaseModel(connection: Connection): LeaseModel {
  return connection.models.Lease ?? connection.model<LeaseDoc>('Lease', schema);
}
