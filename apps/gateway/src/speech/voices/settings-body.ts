import { SpeechError } from '@platform/errors';
import type { VoiceSettings } from '@platform/speech-store';

/** A voice settings object from a client: unit fields 0.0–1.0, `use_speaker_boost` boolean. */
export function parseSettingsBody(body: unknown): Partial<VoiceSettings> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new SpeechError(400, 'bad_request', 'The body must be a voice settings JSON object.');
  const given = body as Record<string, unknown>;
  const out: Partial<VoiceSettings> = {};
  for (const field of ['stability', 'similarity_boost', 'style'] as const) {
    const value = given[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
      throw new SpeechError(400, 'bad_request', `${field} must be a number from 0.0 to 1.0`);
    }
    out[field] = value;
  }
  const boost = given.use_speaker_boost;
  if (boost !== undefined && boost !== null) {
    if (typeof boost !== 'boolean') throw new SpeechError(400, 'bad_request', 'use_speaker_boost must be a boolean');
    out.use_speaker_boost = boost;
  }
  return out;
}
