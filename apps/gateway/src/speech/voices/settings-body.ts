import { voiceSettingsEditBody } from '@platform/contracts';
import type { VoiceSettings } from '@platform/speech-store';
import { readSpeechInput } from '../speech-input';

/** A voice settings object from a client: the fields given (null is "not given"), each checked. */
export function parseSettingsBody(body: unknown): Partial<VoiceSettings> {
  const { stability, similarity_boost, style, use_speaker_boost } = readSpeechInput(voiceSettingsEditBody, body);
  return {
    ...(stability != null ? { stability } : {}),
    ...(similarity_boost != null ? { similarity_boost } : {}),
    ...(style != null ? { style } : {}),
    ...(use_speaker_boost != null ? { use_speaker_boost } : {}),
  };
}
