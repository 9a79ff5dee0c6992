import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Model } from 'mongoose';
import { normalizeApiKeyScopes, type ApiKeyScope } from '@platform/oauth-resource';
import type { AccountDoc } from '../accounts/account-model';
import { sha256 } from '../crypto/secrets';
import { API_KEY_REVOKED_CHANNEL } from '../tokens/revocation';
import type { ApiKeyDoc, ApiKeyGrant } from './api-key-model';

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
  scopes: ApiKeyScope[];
}

export function toPublicApiKey(doc: ApiKeyDoc): PublicApiKey {
  return {
    id: doc._id,
    accountId: doc.accountId,
    name: doc.name,
    prefix: doc.prefix,
    createdAt: new Date(doc.createdAt).toISOString(),
    revoked: Boolean(doc.revokedAt),
    scopes: normalizeApiKeyScopes(doc.scopes),
  };
}

/** Live keys an account may hold when keys are made through the internal API (self-service included). */
export const API_KEYS_PER_ACCOUNT = 20;

export class ApiKeyLimitError extends Error {
  constructor(readonly limit: number) {
    super(`an account holds at most ${limit} live API keys; revoke one first`);
    this.name = 'ApiKeyLimitError';
  }
}

interface NewApiKeyOptions {
  /** Subset of API_KEY_SCOPES; absent: all. */
  scopes?: readonly string[];
  /** Refuse (ApiKeyLimitError) when the account would hold more live keys than this. */
  maxLive?: number;
  /** The OAuth grant the key is minted from (mint-api-key.ts); absent for an administrator's key. */
  grant?: ApiKeyGrant;
}

/**
 * Makes a key; the secret is returned here once and only its SHA-256 is stored. With `maxLive` the
 * key is inserted first and counted after: of concurrent creations past the bound each sees the
 * others and removes its own, so the bound holds without a lock (at worst both are refused).
 */
export async function createApiKey(
  model: Model<ApiKeyDoc>,
  accountId: string,
  name: string,
  options: NewApiKeyOptions = {},
): Promise<{ key: string; doc: ApiKeyDoc }> {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('hex')}`;
  const created = await model.create({
    _id: `key_${randomBytes(8).toString('hex')}`,
    accountId,
    name,
    hash: sha256(key),
    prefix: key.slice(0, 10),
    scopes: normalizeApiKeyScopes(options.scopes),
    grant: options.grant ?? null,
  });
  if (options.maxLive !== undefined && (await model.countDocuments({ accountId, revokedAt: null })) > options.maxLive) {
    await model.deleteOne({ _id: created._id });
    throw new ApiKeyLimitError(options.maxLive);
  }
  return { key, doc: created.toObject() };
}

interface ApiKeyLookup {
  accountId: string;
  plan: string;
  keyId: string;
  roles: string[];
  /** Space-separated: the scopes the key's caller holds. */
  scope: string;
}

/** Which active account and plan a key belongs to; null for unknown, revoked, or disabled-account keys. */
export async function lookupApiKey(
  keys: Model<ApiKeyDoc>,
  accounts: Model<AccountDoc>,
  key: string,
): Promise<ApiKeyLookup | null> {
  if (!API_KEY_SHAPE.test(key)) return null;
  const doc = await keys.findOne({ hash: sha256(key), revokedAt: null }).lean<ApiKeyDoc>();
  if (!doc) return null;
  const account = await accounts.findById(doc.accountId).lean<AccountDoc>();
  if (!account || account.status !== 'active') return null;
  return {
    accountId: account._id,
    plan: account.plan,
    keyId: doc._id,
    roles: account.roles,
    scope: normalizeApiKeyScopes(doc.scopes).join(' '),
  };
}

export async function listApiKeys(model: Model<ApiKeyDoc>, accountId?: string): Promise<ApiKeyDoc[]> {
  return model
    .find(accountId ? { accountId } : {})
    .sort({ createdAt: 1 })
    .limit(1000)
    .lean<ApiKeyDoc[]>();
}

interface ApiKeyPage {
  items: ApiKeyDoc[];
  /** The last item's id when more follow (pass it as `startAfter`); null on the last page. */
  nextStartAfter: string | null;
}

/** An account's live keys, oldest first, `limit` at a time after the key `startAfter`. */
export async function listLiveApiKeys(
  model: Model<ApiKeyDoc>,
  accountId: string,
  limit: number,
  startAfter?: string,
): Promise<ApiKeyPage> {
  const filter: Record<string, unknown> = { accountId, revokedAt: null };
  if (startAfter !== undefined) {
    const anchor = await model.findOne({ _id: startAfter, accountId }).lean<ApiKeyDoc>();
    if (!anchor) return { items: [], nextStartAfter: null };
    filter.$or = [{ createdAt: { $gt: anchor.createdAt } }, { createdAt: anchor.createdAt, _id: { $gt: anchor._id } }];
  }
  const found = await model
    .find(filter)
    .sort({ createdAt: 1, _id: 1 })
    .limit(limit + 1)
    .lean<ApiKeyDoc[]>();
  const items = found.slice(0, limit);
  return { items, nextStartAfter: found.length > limit ? items[items.length - 1]!._id : null };
}

/**
 * Revokes a key and tells the gateways, which drop it from their caches. With `accountId`, only a
 * key of that account: another account's key is answered as absent, as an unknown one is.
 */
export async function revokeApiKey(
  model: Model<ApiKeyDoc>,
  redis: Redis,
  keyId: string,
  accountId?: string,
): Promise<boolean> {
  const filter = accountId === undefined ? { _id: keyId, revokedAt: null } : { _id: keyId, accountId, revokedAt: null };
  const doc = await model.findOneAndUpdate(filter, { $set: { revokedAt: new Date() } }).lean<ApiKeyDoc>();
  if (!doc) return false;
  await redis.publish(API_KEY_REVOKED_CHANNEL, keyId);
  return true;
}
