import { Schema, type Connection, type Model } from 'mongoose';

/**
 * The outbox of back-channel logouts: one document per logout token to deliver to one client. It lives
 * in MongoDB, so a logout decided before a restart (or on another replica) is still delivered after it;
 * a delivered one is deleted, one given up on stays as `failed` for a week (what an operator inspects).
 */
export interface LogoutDeliveryDoc {
  _id: string; // the logout token's jti
  clientId: string;
  sub: string;
  sid?: string | null;
  state: 'pending' | 'failed';
  attempts: number;
  /** When the next attempt is due; while an attempt runs, the end of its lease (another replica waits). */
  nextAttemptAt: Date;
  lastError?: string | null;
  /** Set on `failed` documents: MongoDB removes them then (TTL index). */
  expiresAt?: Date | null;
  createdAt?: Date;
}

const schema = new Schema<LogoutDeliveryDoc>(
  {
    _id: String,
    clientId: String,
    sub: String,
    sid: { type: String, default: null },
    state: { type: String, default: 'pending' },
    attempts: { type: Number, default: 0 },
    nextAttemptAt: Date,
    lastError: { type: String, default: null },
    expiresAt: { type: Date, default: null },
  },
  { collection: 'backchannel_logouts', timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
// The worker's query: the due pending deliveries, oldest due first.
schema.index({ state: 1, nextAttemptAt: 1 });
schema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

export function logoutDeliveryModel(conn: Connection): Model<LogoutDeliveryDoc> {
  return (
    (conn.models.LogoutDelivery as Model<LogoutDeliveryDoc> | undefined) ??
    conn.model<LogoutDeliveryDoc>('LogoutDelivery', schema)
  );
}
