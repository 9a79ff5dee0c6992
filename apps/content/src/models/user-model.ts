import { Schema, type Connection, type Model } from 'mongoose';
import { entityEventSchemaFields, type EntityEventFields } from './outbox-fields';

export type UserStatus = 'ACTIVE' | 'INACTIVE' | 'PENDING' | 'SUSPENDED' | 'DELETED';
export type UserRole = 'ADMIN' | 'MODERATOR' | 'USER' | 'GUEST';

/** A user's profile; `_id` is the account id in auth (one person, one id, design notes). */
export interface UserDoc extends EntityEventFields {
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
}

const schema = new Schema<UserDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    nameLower: { type: String, required: true },
    email: { type: String, required: true },
    avatar: { type: String, default: null },
    status: { type: String, required: true, default: 'ACTIVE' },
    role: { type: String, required: true, default: 'USER' },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, default: null },
    updatedAtSort: { type: Date, required: true },
    ...entityEventSchemaFields,
  },
  { versionKey: false, collection: 'users' },
);
// One index per order the interfaces offer (with _id as the tie-breaker of keyset cursors),
// plus the filters.
schema.index({ email: 1 }, { unique: true });
schema.index({ nameLower: 1, _id: 1 });
schema.index({ createdAt: 1, _id: 1 });
schema.index({ updatedAtSort: 1, _id: 1 });
schema.index({ email: 1, _id: 1 });
schema.index({ status: 1 });
schema.index({ role: 1 });

export type UserModel = Model<UserDoc>;
export function userModel(connection: Connection): UserModel {
  return connection.models.User ?? connection.model<UserDoc>('User', schema);
}
