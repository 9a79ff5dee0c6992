import { z } from 'zod/v4';
import { DEFAULT_VOICE_SETTINGS, SPEED_RANGE } from '@platform/speech-engine';

/** A unit field (0.0–1.0); null counts as not given, as the official SDKs send it. */
const unit = (name: string, description: string, fallback: number) => {
  const message = `${name} must be a number from 0.0 to 1.0`;
  return z
    .number({ error: message })
    .min(0, { error: message })
    .max(1, { error: message })
    .nullish()
    .meta({ description, default: fallback });
};

/**
 * The fields a voice keeps, every one optional; `prefix` is how the speech API's messages name the
 * object (`voice_settings.` inside a synthesis request, nothing in a settings body).
 */
const storedFields = (prefix: string) => ({
  stability: unit(`${prefix}stability`, 'Intonation range: 0 lively, 1 monotone.', DEFAULT_VOICE_SETTINGS.stability),
  similarity_boost: unit(
    `${prefix}similarity_boost`,
    'How strongly the voice’s own character is applied.',
    DEFAULT_VOICE_SETTINGS.similarity_boost,
  ),
  style: unit(`${prefix}style`, 'Exaggeration of emphasis and pace.', DEFAULT_VOICE_SETTINGS.style),
  use_speaker_boost: z
    .boolean({ error: `${prefix}use_speaker_boost must be a boolean` })
    .nullish()
    .meta({
      description: 'Loudness normalisation to −14 dBFS RMS.',
      default: DEFAULT_VOICE_SETTINGS.use_speaker_boost,
    }),
});

const SPEED_MESSAGE = `voice_settings.speed must be a number from ${SPEED_RANGE.min} to ${SPEED_RANGE.max}`;

/**
 * A synthesis request's `voice_settings`: every field optional; missing ones come from the voice's
 * saved settings, then the defaults (the engine's `parseVoiceSettings` fills them in).
 */
export const voiceSettings = z.object(
  {
    ...storedFields('voice_settings.'),
    speed: z
      .number({ error: SPEED_MESSAGE })
      .min(SPEED_RANGE.min, { error: SPEED_MESSAGE })
      .max(SPEED_RANGE.max, { error: SPEED_MESSAGE })
      .nullish()
      .meta({ description: 'Speaking-rate multiplier.', default: DEFAULT_VOICE_SETTINGS.speed }),
  },
  { error: 'voice_settings must be an object' },
);

/**
 * `POST /v1/voices/{voice_id}/settings/edit`: the settings a voice keeps, every field optional (the
 * ones not given keep their value; `speed` is chosen per request, not kept).
 */
export const voiceSettingsEditBody = z.object(storedFields(''), {
  error: 'The body must be a voice settings JSON object.',
});

const unitValue = z.number().min(0).max(1);

/** The voice settings a voice keeps (`GET /v1/voices/{id}/settings`, `/voices/settings/default`). */
export const storedVoiceSettings = z.looseObject({
  stability: unitValue,
  similarity_boost: unitValue,
  style: unitValue,
  use_speaker_boost: z.boolean(),
});
