import { Schema, type Connection, type Model } from 'mongoose';

export interface ApiKeyDoc {
  _id: string; // key id, public
  accountId: string;
  name: string;
  /** SHA-256 of the whole key; the key itself is shown once and never stored. */
  hash: string;
  /** First characters of the key, so a user can recognise it in a list. */
  prefix: string;
  /** Subset of API_KEY_SCOPES (libs/oauth-resource); absent on keys made before keys had scopes: all. */
  scopes?: string[];
  revokedAt?: Date | null;
  createdAt: Date;
}

const schema = new Schema<ApiKeyDoc>(
  {
    _id: String,
    accountId: { type: String, index: true },
    name: String,
    hash: { type: String, unique: true },
    prefix: String,
    scopes: { type: [String], default: undefined },
    revokedAt: { type: Date, default: null },
  },
  { collection: 'api_keys', timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);

export function apiKeyModel(conn: Connection): Model<ApiKeyDoc> {
  return (conn.models.ApiKey as Model<ApiKeyDoc> | undefined) ?? conn.model<ApiKeyDoc>('ApiKey', schema);
}
