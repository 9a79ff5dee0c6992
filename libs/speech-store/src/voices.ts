import type mongoose from 'mongoose';
import { SpeechError } from '@platform/errors';
import type { EngineVoiceParams } from '@platform/speech-engine';
import { getFile } from './gridfs';
import { isPlausibleId } from './ids';
import type { SampleDoc, VoiceDoc, VoiceSettings } from './documents';
import type { PremadeVoice } from './premade';
import { removeSampleFiles } from './sample-files';
import type { SpeechStore } from './store';
import { checkVoiceChange, claimVoiceChange, releaseVoiceSlot } from './subscriptions';
import { inTransaction } from './transaction';
import { deleteVoiceSettings, getVoiceSettings } from './voice-settings';

export type StoredVoice = { category: 'premade'; premade: PremadeVoice } | { category: 'cloned'; doc: VoiceDoc };

export function premadeImmutable(): SpeechError {
  return new SpeechError(400, 'bad_request', 'Premade voices cannot be edited or deleted.');
}

/** A sample change that lost the race with another change of the same voice. */
export function voiceChanged(): SpeechError {
  return new SpeechError(409, 'error', 'The voice changed while this edit was running; try again.');
}

export function voiceNotFound(voiceId: string): SpeechError {
  return new SpeechError(404, 'voice_not_found', `A voice with the voice_id ${voiceId} was not found.`);
}

/** Premade voices and the account's own cloned voices; another account's voice is not there. */
export async function findVoice(store: SpeechStore, accountId: string, voiceId: string): Promise<StoredVoice | null> {
  const premade = store.premade.find((v) => v.voiceId === voiceId);
  if (premade) return { category: 'premade', premade };
  if (!isPlausibleId(voiceId)) return null;
  const doc = await store.models.Voice.findOne({ _id: voiceId, accountId }).lean<VoiceDoc>();
  return doc ? { category: 'cloned', doc } : null;
}

/** Premade voices first (catalogue order), then the account's clones, oldest first. */
export async function listVoices(store: SpeechStore, accountId: string): Promise<StoredVoice[]> {
  const cloned = await store.models.Voice.find({ accountId }).sort({ createdAt: 1, _id: 1 }).lean<VoiceDoc[]>();
  return [
    ...store.premade.map((premade) => ({ category: 'premade' as const, premade })),
    ...cloned.map((doc) => ({ category: 'cloned' as const, doc })),
  ];
}

/** A voice of an account as `resolveVoice` finds it (the pipeline's `ResolvedVoice` is made from it in store-hooks.ts). */
export interface AccountVoice {
  voiceId: string;
  name: string;
  category: 'premade' | 'cloned';
  /** The voice's own parameters; the engine applies the settings (`similarity_boost` scales the character). */
  engineParams: EngineVoiceParams;
  /** Effective settings: the request's over the account's saved ones over the defaults. */
  settings: VoiceSettings;
}

/**
 * What the synthesis pipeline calls to turn a voice id into engine parameters for an account.
 * Throws `voice_not_found` (404) for unknown ids and for other accounts' voices alike.
 */
export async function resolveVoice(
  store: SpeechStore,
  input: { accountId: string; voiceId: string; settings?: Partial<VoiceSettings> },
): Promise<AccountVoice> {
  const found = await findVoice(store, input.accountId, input.voiceId);
  if (!found) throw voiceNotFound(input.voiceId);
  const saved = await getVoiceSettings(store, input.accountId, input.voiceId);
  const settings: VoiceSettings = { ...saved, ...definedOnly(input.settings ?? {}) };
  if (found.category === 'premade') {
    return {
      voiceId: input.voiceId,
      name: found.premade.name,
      category: 'premade',
      engineParams: { ...found.premade.engineParams },
      settings,
    };
  }
  return {
    voiceId: input.voiceId,
    name: found.doc.name,
    category: 'cloned',
    engineParams: { ...found.doc.engineParams },
    settings,
  };
}

function definedOnly(settings: Partial<VoiceSettings>): Partial<VoiceSettings> {
  return Object.fromEntries(
    Object.entries(settings).filter(([, v]) => v !== undefined && v !== null),
  ) as Partial<VoiceSettings>;
}

export interface NewClonedVoice {
  /** The id the samples were stored under (`storeSampleFiles`). */
  voiceId: string;
  accountId: string;
  plan?: string;
  name: string;
  description: string | null;
  labels: Record<string, string>;
  /** Stored already (`storeSampleFiles`); this takes them over and removes them if no voice is made of them. */
  samples: SampleDoc[];
  analysis: Record<string, number>;
  engineParams: EngineVoiceParams;
}

/**
 * Stores a cloned voice whose samples are in GridFS already: one transaction takes a voice slot and an
 * add/edit from the plan and inserts the voice, so the counters and the voices stored never disagree. A
 * refusal or failure removes the samples again, so nothing is left behind.
 */
export async function createClonedVoice(store: SpeechStore, input: NewClonedVoice): Promise<VoiceDoc> {
  const { voiceId, samples } = input;
  try {
    await checkVoiceChange(store, input.accountId, input.plan, 'add');
    return await inTransaction(store, async (session) => {
      await claimVoiceChange(store, session, input.accountId, input.plan, 'add');
      const [doc] = await store.models.Voice.create(
        [
          {
            _id: voiceId,
            accountId: input.accountId,
            name: input.name,
            description: input.description,
            labels: input.labels,
            samples,
            analysis: input.analysis,
            engineParams: input.engineParams,
          },
        ],
        { session },
      );
      if (!doc) throw new Error('voice insert returned nothing');
      return doc.toObject<VoiceDoc>();
    });
  } catch (err) {
    await removeSampleFiles(store.samples, samples);
    throw err;
  }
}

export interface VoiceEdit {
  accountId: string;
  plan?: string;
  voiceId: string;
  name?: string;
  description?: string | null;
  labels?: Record<string, string>;
  /**
   * When present, the sample set changes: `keep` lists kept sample ids, `add` the new uploads, stored already
   * (`storeSampleFiles`) and removed again if the edit does not happen.
   */
  samples?: { keep: string[]; add: SampleDoc[]; analysis: Record<string, number>; engineParams: EngineVoiceParams };
}

/**
 * Edits a cloned voice. Changing samples counts against `max_voice_add_edits`; renaming does not.
 * A sample change is one transaction that takes the add/edit and swaps the voice, guarded by the
 * version the new parameters were derived from: two concurrent edits cannot leave a voice whose
 * parameters describe other samples, and an edit that loses that race is not counted.
 */
export async function editClonedVoice(store: SpeechStore, edit: VoiceEdit): Promise<VoiceDoc> {
  let edited: { doc: VoiceDoc; dropped: SampleDoc[] };
  try {
    edited = await swapVoice(store, edit);
  } catch (err) {
    await removeSampleFiles(store.samples, edit.samples?.add ?? []);
    throw err;
  }
  await removeSampleFiles(store.samples, edited.dropped);
  return edited.doc;
}

/** `editClonedVoice`'s change, and the samples it dropped, whose files go once it is made. */
async function swapVoice(store: SpeechStore, edit: VoiceEdit): Promise<{ doc: VoiceDoc; dropped: SampleDoc[] }> {
  const current = await findVoice(store, edit.accountId, edit.voiceId);
  if (!current) throw voiceNotFound(edit.voiceId);
  if (current.category === 'premade') throw premadeImmutable();
  const set: Record<string, unknown> = {};
  if (edit.name !== undefined) set.name = edit.name;
  if (edit.description !== undefined) set.description = edit.description;
  if (edit.labels !== undefined) set.labels = edit.labels;
  if (!edit.samples) {
    const doc = await store.models.Voice.findOneAndUpdate(
      { _id: edit.voiceId, accountId: edit.accountId },
      { $set: set },
      { new: true },
    ).lean<VoiceDoc>();
    if (!doc) throw voiceNotFound(edit.voiceId);
    return { doc, dropped: [] };
  }
  await checkVoiceChange(store, edit.accountId, edit.plan, 'edit');
  const keep = new Set(edit.samples.keep);
  const kept = current.doc.samples.filter((s) => keep.has(s.sample_id));
  set.samples = [...kept, ...edit.samples.add];
  set.analysis = edit.samples.analysis;
  set.engineParams = edit.samples.engineParams;
  const doc = await inTransaction(store, async (session) => {
    await claimVoiceChange(store, session, edit.accountId, edit.plan, 'edit');
    const swapped = await store.models.Voice.findOneAndUpdate(
      { _id: edit.voiceId, accountId: edit.accountId, updatedAt: current.doc.updatedAt },
      { $set: set },
      { new: true, session },
    ).lean<VoiceDoc>();
    if (!swapped) throw voiceChanged();
    return swapped;
  });
  return { doc, dropped: current.doc.samples.filter((s) => !keep.has(s.sample_id)) };
}

/**
 * Deletes a cloned voice with its saved settings and frees its slot, in one transaction; then its
 * sample files. False when it is not the account's.
 */
export async function deleteClonedVoice(store: SpeechStore, accountId: string, voiceId: string): Promise<boolean> {
  if (!isPlausibleId(voiceId)) return false;
  const doc = await inTransaction(store, async (session) => {
    const deleted = await store.models.Voice.findOneAndDelete(
      { _id: voiceId, accountId },
      { session },
    ).lean<VoiceDoc>();
    if (!deleted) return null;
    await deleteVoiceSettings(store, accountId, voiceId, session);
    await releaseVoiceSlot(store, session, accountId);
    return deleted;
  });
  if (!doc) return false;
  await removeSampleFiles(store.samples, doc.samples);
  return true;
}

/** The stored bytes of a sample of the account's voice, or null. */
export async function getSampleAudio(
  store: SpeechStore,
  accountId: string,
  voiceId: string,
  sampleId: string,
): Promise<{ sample: SampleDoc; bytes: Buffer } | null> {
  const found = await findVoice(store, accountId, voiceId);
  if (!found || found.category !== 'cloned') return null;
  const sample = found.doc.samples.find((s) => s.sample_id === sampleId);
  if (!sample) return null;
  const bytes = await getFile(store.samples, sample.file_id as mongoose.Types.ObjectId);
  return bytes ? { sample, bytes } : null;
}
