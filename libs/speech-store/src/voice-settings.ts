import type { ClientSession } from 'mongoose';
import type { VoiceSettings } from './documents';
import type { SpeechStore } from './store';

/** The hosted API's defaults, answered by `GET /v1/voices/settings/default`. */
export const DEFAULT_VOICE_SETTINGS: VoiceSettings = {
  stability: 0.5,
  similarity_boost: 0.75,
  style: 0,
  use_speaker_boost: true,
};

/** An account's saved settings for a voice (premade or cloned), or the defaults. */
export async function getVoiceSettings(store: SpeechStore, accountId: string, voiceId: string): Promise<VoiceSettings> {
  const doc = await store.models.VoiceSettings.findById(`${accountId}:${voiceId}`).lean();
  return doc ? { ...DEFAULT_VOICE_SETTINGS, ...pickSettings(doc.settings) } : { ...DEFAULT_VOICE_SETTINGS };
}

/** Saves settings: fields left out keep their saved (or default) values. */
export async function setVoiceSettings(
  store: SpeechStore,
  accountId: string,
  voiceId: string,
  patch: Partial<VoiceSettings>,
): Promise<VoiceSettings> {
  const settings = { ...(await getVoiceSettings(store, accountId, voiceId)), ...patch };
  await store.models.VoiceSettings.updateOne(
    { _id: `${accountId}:${voiceId}` },
    { $set: { accountId, voiceId, settings } },
    { upsert: true },
  );
  return settings;
}

export async function deleteVoiceSettings(
  store: SpeechStore,
  accountId: string,
  voiceId: string,
  session?: ClientSession,
): Promise<void> {
  await store.models.VoiceSettings.deleteOne({ _id: `${accountId}:${voiceId}` }, session ? { session } : {});
}

function pickSettings(value: Partial<VoiceSettings>): Partial<VoiceSettings> {
  const out: Partial<VoiceSettings> = {};
  if (typeof value.stability === 'number') out.stability = value.stability;
  if (typeof value.similarity_boost === 'number') out.similarity_boost = value.similarity_boost;
  if (typeof value.style === 'number') out.style = value.style;
  if (typeof value.use_speaker_boost === 'boolean') out.use_speaker_boost = value.use_speaker_boost;
  return out;
}
