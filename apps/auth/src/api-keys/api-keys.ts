import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Model } from 'mongoose';
import type { AccountDoc } from '../accounts/account-model';
import { sha256 } from '../crypto/secrets';
import { API_KEY_REVOKED_CHANNEL } from '../tokens/revocation';
import type { ApiKeyDoc } from './api-key-model';

/** Speech API keys look like `sk_<64 hex>`: the `sk_` prefix makes them recognisable to secret scanners. */
export const API_KEY_PREFIX = 'sk_';
const API_KEY_SHAPE = /^sk_[0-9a-f]{64}$/;

export interface PublicApiKey {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  createdAt: string;
  revoked: boolean;
}

export function toPublicApiKey(doc: ApiKeyDoc): PublicApiKey {
  return {
    id: doc._id,
    accountId: doc.accountId,
    name: doc.name,
    prefix: doc.prefix,
    createdAt: new Date(doc.createdAt).toISOString(),
    revoked: Boolean(doc.revokedAt),
  };
}

export async function createApiKey(model: Model<ApiKeyDoc>, accountId: string, name: string): Promise<{ key: string; doc: ApiKeyDoc }> {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('hex')}`;
  const created = await model.create({
    _id: `key_${randomBytes(8).toString('hex')}`,
    accountId,
    name,
    hash: sha256(key),
    prefix: key.slice(0, 10),
  });
  return { key, doc: created.toObject() };
}

export interface ApiKeyLookup {
  accountId: string;
  plan: string;
  keyId: string;
  roles: string[];
}

/** Which active account and plan a key belongs to; null for unknown, revoked, or disabled-account keys. */
export async function lookupApiKey(keys: Model<ApiKeyDoc>, accounts: Model<AccountDoc>, key: string): Promise<ApiKeyLookup | null> {
  if (!API_KEY_SHAPE.test(key)) return null;
  const doc = await keys.findOne({ hash: sha256(key), revokedAt: null }).lean<ApiKeyDoc>();
  if (!doc) return null;
  const account = await accounts.findById(doc.accountId).lean<AccountDoc>();
  if (!account || account.status !== 'active') return null;
  return { accountId: account._id, plan: account.plan, keyId: doc._id, roles: account.roles };
}

export async function listApiKeys(model: Model<ApiKeyDoc>, accountId?: string): Promise<ApiKeyDoc[]> {
  return model.find(accountId ? { accountId } : {}).sort({ createdAt: 1 }).limit(1000).lean<ApiKeyDoc[]>();
}

/** Revokes a key and tells the gateways, which drop it from their caches. */
export async function revokeApiKey(model: Model<ApiKeyDoc>, redis: Redis, keyId: string): Promise<boolean> {
  const doc = await model.findOneAndUpdate({ _id: keyId, revokedAt: null }, { $set: { revokedAt: new Date() } }).lean<ApiKeyDoc>();
  if (!doc) return false;
  await redis.publish(API_KEY_REVOKED_CHANNEL, keyId);
  return true;
}
