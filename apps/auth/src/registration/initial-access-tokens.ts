import { Schema, type Connection, type Model } from 'mongoose';
import type { z } from 'zod/v4';
import type { initialAccessTokenRequest } from '@platform/contracts';
import type { AuditActor } from '../admin/admin-audit';
import { randomToken, sha256 } from '../crypto/secrets';

/**
 * Initial access tokens (RFC 7591 §3): what `POST /register` needs while open registration is off
 * (REGISTRATION_OPEN). An administrator mints one (admin API, CLI) and hands it to a developer. Only
 * its SHA-256 is stored; it expires (MongoDB's TTL index removes it) and may be limited to a number of
 * registrations.
 */
interface InitialAccessTokenDoc {
  _id: string; // the token's id (shown to administrators; not the token)
  tokenHash: string;
  expiresAt: Date;
  /** Registrations it may make; null: any number until it expires. */
  maxUses: number | null;
  used: number;
  createdBy: AuditActor;
  createdAt: Date;
}

const schema = new Schema<InitialAccessTokenDoc>(
  {
    _id: String,
    tokenHash: { type: String, required: true, unique: true },
    expiresAt: { type: Date, required: true, expires: 0 },
    maxUses: { type: Number, default: null },
    used: { type: Number, default: 0 },
    createdBy: { type: Schema.Types.Mixed, required: true },
  },
  { collection: 'registration_initial_tokens', timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);

export function initialAccessTokenModel(conn: Connection): Model<InitialAccessTokenDoc> {
  return (
    (conn.models.InitialAccessToken as Model<InitialAccessTokenDoc> | undefined) ??
    conn.model<InitialAccessTokenDoc>('InitialAccessToken', schema)
  );
}

export interface MintedInitialAccessToken {
  id: string;
  /** Shown once, here. */
  initial_access_token: string;
  expires_at: string;
  max_uses: number | null;
}

export async function mintInitialAccessToken(
  model: Model<InitialAccessTokenDoc>,
  input: z.output<typeof initialAccessTokenRequest>,
  createdBy: AuditActor,
): Promise<MintedInitialAccessToken> {
  const token = randomToken('iat_');
  const id = `iat_${randomToken('', 9)}`;
  const expiresAt = new Date(Date.now() + input.expires_in * 1000);
  await model.create({
    _id: id,
    tokenHash: sha256(token),
    expiresAt,
    maxUses: input.max_uses ?? null,
    used: 0,
    createdBy,
  });
  return { id, initial_access_token: token, expires_at: expiresAt.toISOString(), max_uses: input.max_uses ?? null };
}

/** A live token with a use left (the TTL monitor runs once a minute: expiry is checked here too). */
function usableFilter(token: string) {
  return {
    tokenHash: sha256(token),
    expiresAt: { $gt: new Date() },
    $or: [{ maxUses: null }, { $expr: { $lt: ['$used', '$maxUses'] } }],
  };
}

/** Whether the token could register a client now (checked before the metadata is read). */
export async function isUsableInitialAccessToken(model: Model<InitialAccessTokenDoc>, token: string): Promise<boolean> {
  return (await model.exists(usableFilter(token))) !== null;
}

/**
 * Spends one use, atomically: of two registrations racing for a token's last use, one gets it and the
 * other is refused. False when the token is unknown, expired or used up.
 */
export async function spendInitialAccessToken(model: Model<InitialAccessTokenDoc>, token: string): Promise<boolean> {
  return (await model.findOneAndUpdate(usableFilter(token), { $inc: { used: 1 } }).lean()) !== null;
}

/** Revokes an initial access token before its expiry; false when there is none with that id. */
export async function revokeInitialAccessToken(model: Model<InitialAccessTokenDoc>, id: string): Promise<boolean> {
  return (await model.deleteOne({ _id: id })).deletedCount === 1;
}

/** Gives back the use a registration spent when the registration was then refused. */
export async function refundInitialAccessToken(model: Model<InitialAccessTokenDoc>, token: string): Promise<void> {
  await model.updateOne({ tokenHash: sha256(token), used: { $gt: 0 } }, { $inc: { used: -1 } });
}
