import type { Role } from '@platform/identity';
import { Schema, type Connection, type Model } from 'mongoose';
import { ACCOUNT_STATUSES, type PublicAccount } from '@platform/contracts';

export type { Role };
type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export interface AccountDoc {
  _id: string;
  name: string;
  email: string;
  /** Lower-cased email: the unique key, so `A@x.io` and `a@x.io` are one account. */
  emailKey: string;
  passwordHash: string;
  roles: Role[];
  status: AccountStatus;
  /** One of `PLAN_NAMES` (libs/identity) when written; a string, as documents written before plans were checked may hold anything. */
  plan: string;
  /**
   * Bumped by every change of what the account may do (roles, status, password): tokens issued from
   * an older version are revoked (tokens/account-revocation.ts). Missing on accounts never changed: 0.
   */
  securityVersion?: number;
  createdAt: Date;
  updatedAt: Date;
}

const schema = new Schema<AccountDoc>(
  {
    _id: String,
    name: { type: String, required: true },
    email: { type: String, required: true },
    emailKey: { type: String, required: true, unique: true },
    passwordHash: { type: String, required: true },
    roles: { type: [String], default: ['USER'] },
    status: { type: String, default: 'active' },
    plan: { type: String, default: 'free' },
    securityVersion: { type: Number, default: 0 },
  },
  { collection: 'accounts', timestamps: true, versionKey: false },
);

export function accountModel(conn: Connection): Model<AccountDoc> {
  return (conn.models.Account as Model<AccountDoc> | undefined) ?? conn.model<AccountDoc>('Account', schema);
}

/** What the admin API and the internal endpoints show of an account (libs/contracts, which the document describes). */
export type { PublicAccount };

export function toPublicAccount(doc: AccountDoc): PublicAccount {
  return {
    id: doc._id,
    name: doc.name,
    email: doc.email,
    roles: doc.roles,
    status: doc.status,
    plan: doc.plan,
    createdAt: new Date(doc.createdAt).toISOString(),
  };
}
