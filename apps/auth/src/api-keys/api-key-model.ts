import { Schema, type Connection, type Model } from 'mongoose';

/**
 * The OAuth grant a key was minted from (`POST /v1/api-keys` with an access token): the key is revoked
 * with it (api-keys/grant-key-revocation.ts). Keys made by an administrator (CLI, admin API) have none.
 */
export interface ApiKeyGrant {
  /** The client the minting token was issued to: deleting the client revokes the key. */
  clientId: string;
  /** The refresh token family the minting token was issued with: revoking the family revokes the key. Null: the token came without a refresh token, and is the grant itself. */
  familyId: string | null;
  /** The minting access token's `jti`: revoking that token revokes the key. */
  tokenId: string;
}

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
  /** Absent on keys an administrator made, and on keys made before keys recorded their grant. */
  grant?: ApiKeyGrant | null;
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
    grant: {
      type: new Schema<ApiKeyGrant>(
        { clientId: String, familyId: { type: String, default: null }, tokenId: String },
        { _id: false },
      ),
      default: null,
    },
  },
  { collection: 'api_keys', timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
// The revocations by grant (grant-key-revocation.ts) find the live keys of a client, a family or a token.
schema.index({ 'grant.clientId': 1, revokedAt: 1 });
schema.index({ 'grant.familyId': 1, revokedAt: 1 });
schema.index({ 'grant.tokenId': 1, revokedAt: 1 });

export function apiKeyModel(conn: Connection): Model<ApiKeyDoc> {
  return (conn.models.ApiKey as Model<ApiKeyDoc> | undefined) ?? conn.model<ApiKeyDoc>('ApiKey', schema);
}
