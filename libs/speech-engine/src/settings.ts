import type { EngineVoiceParams } from './voice-params';

/** The speech API's `voice_settings`, plus `speed` as the hosted API accepts it. */
export interface VoiceSettings {
  stability: number;
  similarity_boost: number;
  style: number;
  use_speaker_boost: boolean;
  speed: number;
}

export const DEFAULT_VOICE_SETTINGS: VoiceSettings = {
  stability: 0.5,
  similarity_boost: 0.75,
  style: 0,
  use_speaker_boost: true,
  speed: 1,
};

export const SPEED_RANGE = { min: 0.7, max: 1.2 } as const;

/** Why a voice settings object was refused; the gateway answers 400 with this message. */
export class VoiceSettingsError extends Error {}

const UNIT_FIELDS = ['stability', 'similarity_boost', 'style'] as const;

/**
 * Validates a client's `voice_settings` (any JSON) and fills the gaps from the voice's own
 * defaults, then the platform's. Unit fields must be numbers in 0.0–1.0; `speed` 0.7–1.2.
 */
export function parseVoiceSettings(input: unknown, voiceDefaults: Partial<VoiceSettings> = {}): VoiceSettings {
  const settings: VoiceSettings = { ...DEFAULT_VOICE_SETTINGS, ...voiceDefaults };
  if (input === undefined || input === null) return settings;
  if (typeof input !== 'object' || Array.isArray(input))
    throw new VoiceSettingsError('voice_settings must be an object');
  const given = input as Record<string, unknown>;
  for (const field of UNIT_FIELDS) {
    const value = given[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
      throw new VoiceSettingsError(`voice_settings.${field} must be a number from 0.0 to 1.0`);
    }
    settings[field] = value;
  }
  const boost = given.use_speaker_boost;
  if (boost !== undefined && boost !== null) {
    if (typeof boost !== 'boolean') throw new VoiceSettingsError('voice_settings.use_speaker_boost must be a boolean');
    settings.use_speaker_boost = boost;
  }
  const speed = given.speed;
  if (speed !== undefined && speed !== null) {
    if (typeof speed !== 'number' || !Number.isFinite(speed) || speed < SPEED_RANGE.min || speed > SPEED_RANGE.max) {
      throw new VoiceSettingsError(
        `voice_settings.speed must be a number from ${SPEED_RANGE.min} to ${SPEED_RANGE.max}`,
      );
    }
    settings.speed = speed;
  }
  return settings;
}

/** What one engine run uses: the voice's parameters after the settings are applied. */
export interface RenderParams extends EngineVoiceParams {
  /** Normalise loudness after synthesis (speaker boost). */
  normalize: boolean;
}

const NEUTRAL = { pitch: 50, pitchRange: 50, speed: 175 };
const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

export interface RenderOptions {
  /**
   * `similarity_boost` has already been applied to the voice's parameters (cloned voices: the
   * gateway applies `applySimilarity` of libs/voice-analysis when it resolves the voice, and marks
   * the job), so pitch, range and rate are taken as given instead of being scaled again.
   */
  similarityApplied?: boolean;
}

/**
 * Applies voice settings to a voice. The effects, each audible:
 * - `similarity_boost` (premade voices; see `RenderOptions.similarityApplied` for clones) scales
 *   how far the voice's pitch, range and rate sit from eSpeak's neutral voice: 0 → halfway back to
 *   neutral, 0.75 → the voice as designed, 1 → 17 % beyond it;
 * - `stability` narrows the intonation range: 0 → 160 % of the voice's range (lively, varied),
 *   0.5 → 100 %, 1 → 40 % (flat, monotone);
 * - `style` exaggerates emphasis and pace: up to +60 % pitch range and +20 % rate at 1;
 * - `speed` multiplies the rate;
 * - `use_speaker_boost` normalises loudness to a fixed level (see `normalizeLoudness`).
 */
export function renderParams(
  voice: EngineVoiceParams,
  settings: VoiceSettings,
  options: RenderOptions = {},
): RenderParams {
  const character = options.similarityApplied ? 1 : 0.5 + (2 / 3) * settings.similarity_boost;
  const pitch = NEUTRAL.pitch + (voice.pitch - NEUTRAL.pitch) * character;
  const range = NEUTRAL.pitchRange + (voice.pitchRange - NEUTRAL.pitchRange) * character;
  const speed = NEUTRAL.speed + (voice.speed - NEUTRAL.speed) * character;
  const variability = 1.6 - 1.2 * settings.stability;
  const emphasis = 1 + 0.6 * settings.style;
  const pace = 1 + 0.2 * settings.style;
  return {
    ...voice,
    pitch: Math.round(clamp(pitch, 0, 99)),
    pitchRange: Math.round(clamp(range * variability * emphasis, 5, 99)),
    speed: Math.round(clamp(speed * pace * settings.speed, 80, 450)),
    normalize: settings.use_speaker_boost,
  };
}
