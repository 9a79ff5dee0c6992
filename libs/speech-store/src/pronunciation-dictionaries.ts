import { Schema, type Connection, type Model } from 'mongoose';
import { SpeechError } from '@platform/errors';
import type { PronunciationRule } from '@platform/speech-engine';
import { isPlausibleId, newId } from './ids';
import { planName } from './plan-allowances';
import type { SpeechStore } from './store';
import { inTransaction } from './transaction';

/**
 * Pronunciation dictionaries (docs/speech.md "Pronunciation dictionaries"): one document per
 * dictionary with its latest version, and one per version holding its rules. A version never
 * changes once written: a rules change writes a new one, so a request that names a version always
 * gets the rules it named.
 */
export interface DictionaryDoc {
  _id: string;
  accountId: string;
  name: string;
  description: string | null;
  createdAtMs: number;
  archivedAtMs: number | null;
  latestVersionId: string;
  latestRulesNum: number;
}

export interface DictionaryVersionDoc {
  _id: string;
  dictionaryId: string;
  accountId: string;
  rules: PronunciationRule[];
  createdAtMs: number;
}

/**
 * One per account that ever made a dictionary: every creation writes it in its transaction, so two
 * creations at once write one document and only one commits; the other runs again and counts anew.
 */
export interface DictionaryClaimDoc {
  _id: string;
  created: number;
}

export interface DictionaryModels {
  Dictionary: Model<DictionaryDoc>;
  DictionaryVersion: Model<DictionaryVersionDoc>;
  DictionaryClaim: Model<DictionaryClaimDoc>;
}

const dictionarySchema = new Schema<DictionaryDoc>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, default: null },
    createdAtMs: { type: Number, required: true },
    archivedAtMs: { type: Number, default: null },
    latestVersionId: { type: String, required: true },
    latestRulesNum: { type: Number, required: true },
  },
  { collection: 'pronunciation_dictionaries', versionKey: false },
);
// One index per order an account's dictionaries are listed in; a page never sorts in memory.
dictionarySchema.index({ accountId: 1, createdAtMs: 1, _id: 1 });
dictionarySchema.index({ accountId: 1, name: 1, _id: 1 });

const versionSchema = new Schema<DictionaryVersionDoc>(
  {
    _id: { type: String, required: true },
    dictionaryId: { type: String, required: true },
    accountId: { type: String, required: true },
    rules: { type: Schema.Types.Mixed, required: true },
    createdAtMs: { type: Number, required: true },
  },
  { collection: 'pronunciation_dictionary_versions', versionKey: false, minimize: false },
);
versionSchema.index({ dictionaryId: 1, createdAtMs: 1 });

const claimSchema = new Schema<DictionaryClaimDoc>(
  { _id: { type: String, required: true }, created: { type: Number, required: true } },
  { collection: 'pronunciation_dictionary_claims', versionKey: false },
);

export function createDictionaryModels(connection: Connection): DictionaryModels {
  return {
    Dictionary: connection.model<DictionaryDoc>('PronunciationDictionary', dictionarySchema),
    DictionaryVersion: connection.model<DictionaryVersionDoc>('PronunciationDictionaryVersion', versionSchema),
    DictionaryClaim: connection.model<DictionaryClaimDoc>('PronunciationDictionaryClaim', claimSchema),
  };
}

export function dictionaryNotFound(id: string): SpeechError {
  return new SpeechError(404, 'error', `A pronunciation dictionary with the id ${id.slice(0, 64)} was not found.`);
}

function versionNotFound(id: string, versionId: string): SpeechError {
  return new SpeechError(
    404,
    'error',
    `The pronunciation dictionary ${id.slice(0, 64)} has no version ${versionId.slice(0, 64)}.`,
  );
}

/** The account's dictionary; another account's is not found, as an unknown one. */
export async function findDictionary(store: SpeechStore, accountId: string, id: string): Promise<DictionaryDoc> {
  const doc = isPlausibleId(id)
    ? await store.models.Dictionary.findOne({ _id: id, accountId }).lean<DictionaryDoc>()
    : null;
  if (!doc) throw dictionaryNotFound(id);
  return doc;
}

/** One version's rules, of the account's dictionary. */
export async function findDictionaryVersion(
  store: SpeechStore,
  accountId: string,
  id: string,
  versionId: string,
): Promise<DictionaryVersionDoc> {
  await findDictionary(store, accountId, id);
  const version = isPlausibleId(versionId)
    ? await store.models.DictionaryVersion.findOne({ _id: versionId, dictionaryId: id }).lean<DictionaryVersionDoc>()
    : null;
  if (!version) throw versionNotFound(id, versionId);
  return version;
}

/**
 * A new dictionary with its first version, within the plan's `pronunciation_dictionary_limit`
 * (archived ones count: they can be used and unarchived). Count, claim and inserts are one
 * transaction that writes the account's claim document, so creations racing at the limit never
 * pass it together (`inTransaction`).
 */
export async function createDictionary(
  store: SpeechStore,
  input: { accountId: string; plan?: string; name: string; description: string | null; rules: PronunciationRule[] },
): Promise<{ dictionary: DictionaryDoc; version: DictionaryVersionDoc }> {
  const plan = planName(input.plan);
  const limit = store.plans[plan].pronunciation_dictionary_limit;
  const now = store.now();
  const id = newId();
  const version: DictionaryVersionDoc = {
    _id: newId(),
    dictionaryId: id,
    accountId: input.accountId,
    rules: input.rules,
    createdAtMs: now,
  };
  const dictionary: DictionaryDoc = {
    _id: id,
    accountId: input.accountId,
    name: input.name,
    description: input.description,
    createdAtMs: now,
    archivedAtMs: null,
    latestVersionId: version._id,
    latestRulesNum: input.rules.length,
  };
  const { Dictionary, DictionaryVersion, DictionaryClaim } = store.models;
  await inTransaction(store, async (session) => {
    const count = await Dictionary.countDocuments({ accountId: input.accountId }, { session });
    if (count >= limit)
      // As a voice past the plan's voice_limit: 429 `quota_exceeded`.
      throw new SpeechError(
        429,
        'quota_exceeded',
        `This account already has ${count} pronunciation dictionaries, the most its ${plan} plan allows (${limit}).`,
      );
    await DictionaryClaim.updateOne({ _id: input.accountId }, { $inc: { created: 1 } }, { upsert: true, session });
    await DictionaryVersion.create([version], { session });
    await Dictionary.create([dictionary], { session });
  });
  return { dictionary, version };
}

/**
 * A new version from the latest one's rules, changed by `change`; the dictionary moves to it only if
 * no other change moved it first (409 then: nothing changed).
 */
export async function changeDictionaryRules(
  store: SpeechStore,
  accountId: string,
  id: string,
  change: (rules: PronunciationRule[]) => PronunciationRule[],
  maxRules: number,
): Promise<DictionaryDoc> {
  const dictionary = await findDictionary(store, accountId, id);
  const latest = await findDictionaryVersion(store, accountId, id, dictionary.latestVersionId);
  const rules = change(latest.rules);
  if (rules.length > maxRules)
    throw new SpeechError(
      400,
      'bad_request',
      `A dictionary holds at most ${maxRules} rules; this change makes ${rules.length}.`,
    );
  const version: DictionaryVersionDoc = { _id: newId(), dictionaryId: id, accountId, rules, createdAtMs: store.now() };
  await store.models.DictionaryVersion.create(version);
  const moved = await store.models.Dictionary.findOneAndUpdate(
    { _id: id, accountId, latestVersionId: dictionary.latestVersionId },
    { $set: { latestVersionId: version._id, latestRulesNum: rules.length } },
    { new: true },
  ).lean<DictionaryDoc>();
  if (!moved) {
    await store.models.DictionaryVersion.deleteOne({ _id: version._id });
    throw new SpeechError(409, 'error', 'The dictionary changed while this change was running; try again.');
  }
  return moved;
}

/** Rename, archive (`archived: true`) or unarchive. */
export async function updateDictionary(
  store: SpeechStore,
  accountId: string,
  id: string,
  update: { name?: string; archived?: boolean },
): Promise<DictionaryDoc> {
  await findDictionary(store, accountId, id);
  const set: Partial<DictionaryDoc> = {};
  if (update.name !== undefined) set.name = update.name;
  if (update.archived !== undefined) set.archivedAtMs = update.archived ? store.now() : null;
  const doc = await store.models.Dictionary.findOneAndUpdate(
    { _id: id, accountId },
    { $set: set },
    { new: true },
  ).lean<DictionaryDoc>();
  if (!doc) throw dictionaryNotFound(id);
  return doc;
}

export interface DictionaryPageQuery {
  accountId: string;
  cursor?: string;
  pageSize: number;
  sort: 'creation_time_unix' | 'name';
  direction: 'ascending' | 'descending';
  includeArchived: boolean;
}

/** One page of the account's dictionaries; the cursor is the last one's id (another account's or unknown: 400). */
export async function listDictionaries(
  store: SpeechStore,
  query: DictionaryPageQuery,
): Promise<{ items: DictionaryDoc[]; nextCursor: string | null }> {
  const key = query.sort === 'name' ? 'name' : 'createdAtMs';
  const order = query.direction === 'ascending' ? 1 : -1;
  const filter: Record<string, unknown> = { accountId: query.accountId };
  if (!query.includeArchived) filter.archivedAtMs = null;
  if (query.cursor) {
    const after = isPlausibleId(query.cursor)
      ? await store.models.Dictionary.findOne({ _id: query.cursor, accountId: query.accountId }).lean<DictionaryDoc>()
      : null;
    if (!after) throw new SpeechError(400, 'bad_request', 'cursor is not a cursor of this list');
    const op = order === 1 ? '$gt' : '$lt';
    filter.$or = [{ [key]: { [op]: after[key] } }, { [key]: after[key], _id: { [op]: after._id } }];
  }
  const found = await store.models.Dictionary.find(filter)
    .sort({ [key]: order, _id: order })
    .limit(query.pageSize + 1)
    .lean<DictionaryDoc[]>();
  const items = found.slice(0, query.pageSize);
  return { items, nextCursor: found.length > query.pageSize ? items.at(-1)!._id : null };
}

/**
 * The rules of a synthesis request's locators, in their order (each dictionary's at the version
 * named, or its latest): what the job carries. An unknown or another account's dictionary or
 * version is the store's 404, before anything is charged.
 */
export async function resolvePronunciationRules(
  store: SpeechStore,
  accountId: string,
  locators: ReadonlyArray<{ pronunciation_dictionary_id: string; version_id?: string | null }>,
): Promise<PronunciationRule[]> {
  const rules: PronunciationRule[] = [];
  for (const locator of locators) {
    const id = locator.pronunciation_dictionary_id;
    const versionId = locator.version_id ?? (await findDictionary(store, accountId, id)).latestVersionId;
    rules.push(...(await findDictionaryVersion(store, accountId, id, versionId)).rules);
  }
  return rules;
}
