import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import type { EngineVoiceParams, VoiceSettings as RequestVoiceSettings } from '@platform/speech-engine';
import type { HistoryState } from '@platform/speech-jobs';
import { createDictionaryModels, type DictionaryModels } from './pronunciation-dictionaries';

/**
 * Voice settings as an account saves them for a voice: a request's `voice_settings` without `speed`,
 * which applies to one request only. Every field is present once stored.
 */
export type VoiceSettings = Omit<RequestVoiceSettings, 'speed'>;

export interface SampleDoc {
  sample_id: string;
  file_name: string;
  mime_type: string;
  size_bytes: number;
  /** SHA-256 of the uploaded bytes, hex. */
  hash: string;
  /** GridFS file id in the `voice_samples` bucket. */
  file_id: mongoose.Types.ObjectId;
}

export interface VoiceDoc {
  _id: string;
  accountId: string;
  name: string;
  description: string | null;
  labels: Record<string, string>;
  samples: SampleDoc[];
  /** What the analysis measured (kept so a re-derive or an operator can see why). */
  analysis: Record<string, number>;
  engineParams: EngineVoiceParams;
  createdAt: Date;
  updatedAt: Date;
}

interface PendingReservation {
  jobId: string;
  characters: number;
  at: Date;
}

/**
 * An account's subscription: one document per account, changed only by conditional updates that
 * carry their own guard (a reservation applies only while the count stays within the limit), and
 * by transactions where a change spans documents (a voice and the voice counters). See
 * subscriptions.ts.
 */
export interface SubscriptionDoc {
  /** The account id. */
  _id: string;
  tier: string;
  /** Characters used this period, reservations of running generations included. */
  characterCount: number;
  /** The account's cloned voices; changes in the same transaction as the voice itself. */
  voiceCount: number;
  voiceAddEditCounter: number;
  /** Unix seconds of the next monthly reset; a period is identified by it. */
  nextResetUnix: number;
  /**
   * Reservations not settled yet. A reservation adds to `characterCount` in the same update that
   * appends its entry, and settling removes the entry in the same update that refunds, so
   * `characterCount` is never less than the sum of the pending entries.
   */
  pending: PendingReservation[];
  /** Set on the first generation or voice change (`is_new_user` is its negation). */
  active: boolean;
  createdAt: Date;
}

export interface HistoryDoc {
  _id: string;
  accountId: string;
  jobId: string;
  voiceId: string;
  voiceName: string;
  modelId: string | null;
  text: string;
  dateUnix: number;
  /** Milliseconds, for a stable newest-first order (with `_id` as the tie-break). */
  createdAtMs: number;
  characterCount: number;
  contentType: string;
  state: HistoryState;
  settings: { stability: number; similarity_boost: number };
  audioFileId: mongoose.Types.ObjectId | null;
  audioBytes: number;
}

interface VoiceSettingsDoc {
  /** `${accountId}:${voiceId}` so one account's settings for one voice is one document. */
  _id: string;
  accountId: string;
  voiceId: string;
  settings: VoiceSettings;
}

export interface SpeechModels extends DictionaryModels {
  Voice: Model<VoiceDoc>;
  Subscription: Model<SubscriptionDoc>;
  History: Model<HistoryDoc>;
  VoiceSettings: Model<VoiceSettingsDoc>;
}

const settingsShape = {
  stability: { type: Number, required: true },
  similarity_boost: { type: Number, required: true },
  style: { type: Number, required: true },
  use_speaker_boost: { type: Boolean, required: true },
};

const voiceSchema = new Schema<VoiceDoc>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, default: null },
    labels: { type: Schema.Types.Mixed, default: {} },
    samples: [
      new Schema<SampleDoc>(
        {
          sample_id: { type: String, required: true },
          file_name: { type: String, required: true },
          mime_type: { type: String, required: true },
          size_bytes: { type: Number, required: true },
          hash: { type: String, required: true },
          file_id: { type: Schema.Types.ObjectId, required: true },
        },
        { _id: false },
      ),
    ],
    analysis: { type: Schema.Types.Mixed, default: {} },
    engineParams: { type: Schema.Types.Mixed, required: true },
  },
  { collection: 'voices', timestamps: true, minimize: false, versionKey: false },
);
// One index per order an account's voices are read in (listVoices, searchVoices): the account,
// then the sort key, then the id that breaks ties; a query on one account never sorts in memory.
voiceSchema.index({ accountId: 1, createdAt: 1, _id: 1 });
voiceSchema.index({ accountId: 1, name: 1, _id: 1 });

const subscriptionSchema = new Schema<SubscriptionDoc>(
  {
    _id: { type: String, required: true },
    tier: { type: String, required: true },
    characterCount: { type: Number, required: true, default: 0 },
    voiceCount: { type: Number, required: true, default: 0 },
    voiceAddEditCounter: { type: Number, required: true, default: 0 },
    nextResetUnix: { type: Number, required: true },
    pending: [new Schema<PendingReservation>({ jobId: String, characters: Number, at: Date }, { _id: false })],
    active: { type: Boolean, required: true, default: false },
    createdAt: { type: Date, required: true },
  },
  { collection: 'subscriptions', versionKey: false },
);
// The stale-reservation sweep looks for old pending entries across accounts.
subscriptionSchema.index({ 'pending.at': 1 });

const historySchema = new Schema<HistoryDoc>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    jobId: { type: String, required: true, unique: true },
    voiceId: { type: String, required: true },
    voiceName: { type: String, required: true },
    modelId: { type: String, default: null },
    text: { type: String, required: true },
    dateUnix: { type: Number, required: true },
    createdAtMs: { type: Number, required: true },
    characterCount: { type: Number, required: true },
    contentType: { type: String, required: true },
    state: { type: String, required: true },
    settings: { stability: Number, similarity_boost: Number },
    audioFileId: { type: Schema.Types.ObjectId, default: null },
    audioBytes: { type: Number, required: true, default: 0 },
  },
  { collection: 'history_items', versionKey: false },
);
historySchema.index({ accountId: 1, createdAtMs: -1, _id: -1 });
// The history list filtered by voice (`voice_id`) or by model (`model_id`).
historySchema.index({ accountId: 1, voiceId: 1, createdAtMs: -1, _id: -1 });
historySchema.index({ accountId: 1, modelId: 1, createdAtMs: -1, _id: -1 });

const voiceSettingsSchema = new Schema<VoiceSettingsDoc>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    voiceId: { type: String, required: true },
    settings: settingsShape,
  },
  { collection: 'voice_settings', versionKey: false },
);

export function createSpeechModels(connection: Connection): SpeechModels {
  return {
    Voice: connection.model<VoiceDoc>('Voice', voiceSchema),
    Subscription: connection.model<SubscriptionDoc>('Subscription', subscriptionSchema),
    History: connection.model<HistoryDoc>('History', historySchema),
    VoiceSettings: connection.model<VoiceSettingsDoc>('VoiceSettings', voiceSettingsSchema),
    ...createDictionaryModels(connection),
  };
}
