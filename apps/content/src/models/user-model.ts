import { USER_ROLES, USER_STATUSES, type UserRole, type UserStatus } from '@platform/events';
import { Schema, type Connection, type Model } from 'mongoose';

export type { UserRole, UserStatus };

/** The fields users are listed by (GraphQL `UserOrderField`, the REST list's `createdAt`). */
export const USER_ORDERS = ['nameLower', 'email', 'createdAt', 'updatedAtSort'] as const;

/** A user's profile; `_id` is the account id in auth (one person, one id, design notes). */
export interface UserDoc {
  _id: string;
  name: string;
  /** Lower-cased copy for case-insensitive ordering and search. */
  nameLower: string;
  email: string;
  avatar: string | null;
  status: UserStatus;
  role: UserRole;
  createdAt: Date;
  updatedAt: Date | null;
  /** updatedAt, or createdAt when never updated: the UPDATED_AT order needs a non-null key. */
  updatedAtSort: Date;
  /** Revision, incremented by every write in the write's transaction (outbox order). */
  rev: number;
}

const schema = new Schema<UserDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    nameLower: { type: String, required: true },
    email: { type: String, required: true },
    avatar: { type: String, default: null },
    status: { type: String, required: true, enum: USER_STATUSES, default: 'ACTIVE' },
    role: { type: String, required: true, enum: USER_ROLES, default: 'USER' },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, default: null },
    updatedAtSort: { type: Date, required: true },
    rev: { type: Number, required: true },
  },
  { versionKey: false, collection: 'users' },
);
schema.index({ email: 1 }, { unique: true });
// Every list is a sorted page: one index per order the interfaces offer (with _id, the tie-breaker
// of keyset cursors), alone and after each equality filter (`status`, `role`), so the page is read
// in index order and never sorted in memory (test/list-indexes.int.test.ts checks every query).
for (const order of USER_ORDERS) {
  schema.index({ [order]: 1, _id: 1 });
  schema.index({ status: 1, [order]: 1, _id: 1 });
  schema.index({ role: 1, [order]: 1, _id: 1 });
}

export type UserModel = Model<UserDoc>;
export function userModel(connection: Connection): UserModel {
  return connection.models.User ?? connection.model<UserDoc>('User', schema);
}
