import type { EngineVoiceParams, PremadeVoice as CatalogueVoice } from '@platform/speech-engine';

/** A voice of the engine's catalogue, as the speech engine hands it to the store. */
export interface PremadeVoice {
  voiceId: string;
  name: string;
  description: string | null;
  labels: Record<string, string>;
  engineParams: EngineVoiceParams;
  /** Where the catalogue serves a preview of the voice. */
  previewUrl?: string;
  /** The voice's own default settings, when it has any. */
  settings?: { stability: number; similarity_boost: number };
}

/**
 * The engine's premade catalogue (`PREMADE_VOICES` of libs/speech-engine) as the store holds it;
 * `previewUrl` says where this deployment serves each voice's preview, when it serves them.
 */
export function premadeFromCatalogue(
  catalogue: readonly CatalogueVoice[],
  previewUrl?: (voiceId: string) => string,
): PremadeVoice[] {
  return catalogue.map((v) => ({
    voiceId: v.voice_id,
    name: v.name,
    description: v.description,
    labels: { ...v.labels },
    engineParams: v.engine,
    ...(previewUrl ? { previewUrl: previewUrl(v.voice_id) } : {}),
    settings: v.settings,
  }));
}
