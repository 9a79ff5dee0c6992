import type { EngineVoiceParams, VoiceSettings } from '@platform/speech-engine';

/**
 * Hooks the account-side features (issue 7: cloned voices, quotas, history) plug into the
 * synthesis pipeline. Every hook is optional: without it the pipeline serves premade voices,
 * charges nothing and records no history.
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

/** The worker's record of a finished job, handed over exactly once per job id. */
export interface HistoryRecord {
  historyItemId: string;
  accountId?: string;
  voiceId: string;
  voiceName: string;
  modelId: string;
  text: string;
  characterCount: number;
  settings: VoiceSettings;
  outputFormat: string;
  contentType: string;
  state: 'complete' | 'failed' | 'cancelled';
  /** The exact bytes sent to the client (complete: the whole file; otherwise what was produced). */
  audio: Buffer;
  createdAtUnix: number;
  /** The same instant in milliseconds: orders history items created within one second. */
  createdAtMs?: number;
}

/** Stores a history record; must be idempotent on `historyItemId` (a unique index suffices). */
export type RecordHistory = (record: HistoryRecord) => Promise<void>;

export interface SpeechHooks {
  resolveVoice?: ResolveVoice;
  quota?: QuotaHooks;
}
