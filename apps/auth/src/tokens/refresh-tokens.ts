import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Redis } from 'ioredis';
import type { ApiKeyDoc } from '../api-keys/api-key-model';
import { revokeGrantKeys } from '../api-keys/grant-key-revocation';
import { randomToken, sha256 } from '../crypto/secrets';
import { revokeAccessToken } from './revocation';

/**
 * Opaque refresh tokens (`rt_…`), stored only as SHA-256 hashes. Each belongs to a family (one
 * grant); rotation marks a token used with a conditional single-document update, and presenting a
 * used token again revokes the whole family, including the access tokens it produced (RFC 9700 §4.14).
 */
export interface RefreshTokenDoc {
  _id: string; // sha256 of the token
  familyId: string;
  clientId: string;
  sub: string;
  scopes: string[];
  audience: string[];
  /** DPoP key the token is bound to (public clients). */
  jkt?: string | null;
  /** The access token issued alongside, revoked with the family. */
  accessJti: string;
  accessExp: number;
  /** OpenID Connect: when the person signed in (seconds), for the ID tokens of refreshes (Core §12.2). */
  authTime?: number | null;
  expiresAt: Date;
  usedAt?: Date | null;
  revokedAt?: Date | null;
  createdAt?: Date;
}

const schema = new Schema<RefreshTokenDoc>(
  {
    _id: String,
    familyId: { type: String, index: true },
    clientId: String,
    sub: { type: String, index: true },
    scopes: [String],
    audience: [String],
    jkt: { type: String, default: null },
    accessJti: String,
    accessExp: Number,
    authTime: { type: Number, default: null },
    expiresAt: Date,
    usedAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
  },
  { collection: 'refresh_tokens', timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
// Deleting a client revokes its live families (`distinct('familyId', {clientId, revokedAt: null})`):
// without this index that is a scan of every refresh token ever issued.
schema.index({ clientId: 1, revokedAt: 1 });
// Minting an API key finds the family of the minting access token (api-keys/mint-api-key.ts).
schema.index({ accessJti: 1 });

export function refreshTokenModel(conn: Connection): Model<RefreshTokenDoc> {
  return (
    (conn.models.RefreshToken as Model<RefreshTokenDoc> | undefined) ??
    conn.model<RefreshTokenDoc>('RefreshToken', schema)
  );
}

/** What revoking a family touches: its tokens, and the API keys minted from it. */
interface FamilyStores {
  refreshTokens: Model<RefreshTokenDoc>;
  apiKeys: Model<ApiKeyDoc>;
  redis: Redis;
}

interface RefreshGrant {
  familyId?: string;
  clientId: string;
  sub: string;
  scopes: string[];
  audience: string[];
  jkt?: string;
  accessJti: string;
  accessExp: number;
  authTime?: number;
  ttlSeconds: number;
}

export async function storeRefreshToken(
  model: Model<RefreshTokenDoc>,
  grant: RefreshGrant,
): Promise<{ token: string; familyId: string }> {
  const token = randomToken('rt_');
  const familyId = grant.familyId ?? randomUUID();
  await model.create({
    _id: sha256(token),
    familyId,
    clientId: grant.clientId,
    sub: grant.sub,
    scopes: grant.scopes,
    audience: grant.audience,
    jkt: grant.jkt ?? null,
    accessJti: grant.accessJti,
    accessExp: grant.accessExp,
    authTime: grant.authTime ?? null,
    expiresAt: new Date(Date.now() + grant.ttlSeconds * 1000),
  });
  return { token, familyId };
}

type ConsumeResult =
  | { ok: true; doc: RefreshTokenDoc }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'reused' | 'wrong_client' };

/**
 * One-time use of a refresh token. `clientId` must be the client the token was issued to; a token
 * presented by another client is refused without being consumed.
 */
export async function consumeRefreshToken(
  stores: FamilyStores,
  token: string,
  clientId: string,
): Promise<ConsumeResult> {
  const model = stores.refreshTokens;
  if (token.length > 200) return { ok: false, reason: 'unknown' };
  const id = sha256(token);
  const existing = await model.findById(id).lean<RefreshTokenDoc>();
  if (!existing) return { ok: false, reason: 'unknown' };
  if (existing.clientId !== clientId) return { ok: false, reason: 'wrong_client' };
  if (existing.revokedAt) return { ok: false, reason: 'revoked' };
  if (existing.usedAt) {
    await revokeFamily(stores, existing.familyId);
    return { ok: false, reason: 'reused' };
  }
  if (new Date(existing.expiresAt).getTime() <= Date.now()) return { ok: false, reason: 'expired' };
  // The one-time claim: one conditional update, so of concurrent uses of the token exactly one
  // finds it unused and marks it.
  const claimed = await model
    .findOneAndUpdate({ _id: id, usedAt: null, revokedAt: null }, { $set: { usedAt: new Date() } }, { new: true })
    .lean<RefreshTokenDoc>();
  if (!claimed) {
    // Lost a race with a concurrent use of the same token: that is reuse too.
    await revokeFamily(stores, existing.familyId);
    return { ok: false, reason: 'reused' };
  }
  return { ok: true, doc: claimed };
}

/**
 * Closes the window between a rotation's claim and the storing of its new token: a concurrent reuse
 * of the old token revokes the family in between and misses the new token if that is stored after
 * the revocation. Called once the new token is stored: when any token of the family is revoked, the
 * family is revoked again, the new token and its access token with it. True when it is revoked.
 */
export async function revokedDuringRotation(stores: FamilyStores, familyId: string): Promise<boolean> {
  if (!(await stores.refreshTokens.exists({ familyId, revokedAt: { $ne: null } }))) return false;
  await revokeFamily(stores, familyId);
  return true;
}

/**
 * Revokes every refresh token of a family (one grant), the access tokens issued with them and the API
 * keys minted with any of those (last: a key being minted meanwhile sees the family revoked).
 */
export async function revokeFamily(stores: FamilyStores, familyId: string): Promise<void> {
  const { refreshTokens: model, redis } = stores;
  await model.updateMany({ familyId, revokedAt: null }, { $set: { revokedAt: new Date() } });
  const members = await model.find({ familyId }, { accessJti: 1, accessExp: 1 }).lean<RefreshTokenDoc[]>();
  for (const m of members) await revokeAccessToken(redis, m.accessJti, m.accessExp);
  await revokeGrantKeys(stores, { familyId });
}

/** Whether a family has been revoked (any of its refresh tokens is). */
export async function isFamilyRevoked(model: Model<RefreshTokenDoc>, familyId: string): Promise<boolean> {
  return (await model.exists({ familyId, revokedAt: { $ne: null } })) !== null;
}

export async function findRefreshToken(model: Model<RefreshTokenDoc>, token: string): Promise<RefreshTokenDoc | null> {
  if (token.length > 200) return null;
  return model.findById(sha256(token)).lean<RefreshTokenDoc>();
}
