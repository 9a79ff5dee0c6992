import type { EngineVoiceParams, PronunciationRule, VoiceSettings } from '@platform/speech-engine';
import type { HistoryRecord } from './history-record';

/**
 * Hooks the account-side features (cloned voices, quotas, history) plug into the synthesis
 * pipeline; `createStoreHooks` of libs/speech-store provides all of them. Every hook is optional:
 * without it the pipeline serves premade voices, charges nothing and records no history.
 */

/** A voice as the engine needs it. */
export interface ResolvedVoice {
  voiceId: string;
  name: string;
  category: 'premade' | 'cloned';
  engine: EngineVoiceParams;
  /** The voice's stored default settings (requests override them). */
  settings?: Partial<VoiceSettings>;
}

/**
 * Finds a voice the account may use (its cloned voices). `null` → the gateway falls back to the
 * premade catalogue, then answers `voice_not_found`.
 */
export type ResolveVoice = (accountId: string | undefined, voiceId: string) => Promise<ResolvedVoice | null>;

/** What `reserve` answers: a handle to settle, or the reason it was refused. */
export type QuotaReservation =
  | { ok: true; reservationId: string }
  | { ok: false; status: 'quota_exceeded' | 'character_limit_exceeded'; message: string };

/**
 * Character quota around a job: the gateway reserves `characters` before enqueueing and settles
 * with the characters actually delivered (0 when the job failed or the client cancelled early).
 */
export interface QuotaHooks {
  /** `plan` is the caller's plan as the gateway knows it (the store may use it for new accounts). */
  reserve(accountId: string, characters: number, jobId: string, plan?: string): Promise<QuotaReservation>;
  settle(reservationId: string, deliveredCharacters: number): Promise<void>;
}

/**
 * Stores a history record: one item per `historyItemId` however many records arrive, in any order.
 * A failed or cancelled record replaces a complete item (the generation was not charged); nothing
 * else replaces an item (`recordHistory` of libs/speech-store).
 */
export type RecordHistory = (record: HistoryRecord) => Promise<void>;

/** A synthesis request's `pronunciation_dictionary_locators`: a dictionary id and, or else its latest, a version. */
export interface PronunciationLocator {
  pronunciation_dictionary_id: string;
  version_id?: string | null;
}

/**
 * The rules of the account's dictionaries the locators name, in their order; an unknown or another
 * account's dictionary or version throws the speech API's 404.
 */
export type ResolvePronunciation = (
  accountId: string,
  locators: readonly PronunciationLocator[],
) => Promise<PronunciationRule[]>;

export interface SpeechHooks {
  resolveVoice?: ResolveVoice;
  /** Pronunciation dictionaries; without it a request that names one is refused (400). */
  resolvePronunciation?: ResolvePronunciation;
  quota?: QuotaHooks;
  /** The gateway's record of a generation whose client did not get the whole audio. */
  recordHistory?: RecordHistory;
}
