import type { VoiceEngineParams } from '@platform/voice-analysis';

/** A voice of the engine's catalogue, as the speech engine hands it to the store. */
export interface PremadeVoice {
  voiceId: string;
  name: string;
  description: string | null;
  labels: Record<string, string>;
  engineParams: VoiceEngineParams;
  /** Where the catalogue serves a preview of the voice. */
  previewUrl?: string;
  /** The voice's own default settings, when it has any. */
  settings?: { stability: number; similarity_boost: number };
}
