import {
  DEFAULT_MODEL_ID,
  DEFAULT_OUTPUT_FORMAT,
  DEFAULT_VOICE_SETTINGS,
  LANGUAGES,
  MODELS,
  NEURAL_MODEL_ID,
  OUTPUT_FORMATS,
  SPEED_RANGE,
} from '@platform/speech-engine';
import type { JsonObject } from '../json-helpers';

/** The longest `text` by default (`SPEECH_MAX_TEXT_CHARS`, docs/configuration.md). */
export const MAX_TEXT_CHARS = 5000;

/** The `output_format` values, from the engine's own list. */
const outputFormatIds = (): string[] => OUTPUT_FORMATS.map((f) => f.id);

/** The media types of the audio, without parameters (`audio/pcm;rate=16000` is `audio/pcm`). */
export const audioMediaTypes = (): string[] => [...new Set(OUTPUT_FORMATS.map((f) => f.contentType.split(';')[0]!))];

const paidFormats = () =>
  OUTPUT_FORMATS.filter((f) => f.minimumPlan)
    .map((f) => `\`${f.id}\` (${f.minimumPlan})`)
    .join(', ');

export const outputFormatSchema = (): JsonObject => ({
  type: 'string',
  enum: outputFormatIds(),
  default: DEFAULT_OUTPUT_FORMAT,
  description:
    '`<codec>_<sample rate>[_<bit rate>]`. Formats kept for paid plans, with the cheapest plan that may ask for them (others: 403 `subscription_required`): ' +
    `${paidFormats()}.`,
});

const unit = (description: string, fallback: number): JsonObject => ({
  type: 'number',
  minimum: 0,
  maximum: 1,
  default: fallback,
  description,
});

/** `voice_settings`: every field optional; missing ones come from the voice's saved settings, then the defaults. */
export const voiceSettingsSchema = (): JsonObject => ({
  type: 'object',
  properties: {
    stability: unit('Intonation range: 0 lively, 1 monotone.', DEFAULT_VOICE_SETTINGS.stability),
    similarity_boost: unit(
      'How strongly the voice’s own character is applied.',
      DEFAULT_VOICE_SETTINGS.similarity_boost,
    ),
    style: unit('Exaggeration of emphasis and pace.', DEFAULT_VOICE_SETTINGS.style),
    use_speaker_boost: {
      type: 'boolean',
      default: DEFAULT_VOICE_SETTINGS.use_speaker_boost,
      description: 'Loudness normalisation to −14 dBFS RMS.',
    },
    speed: {
      type: 'number',
      minimum: SPEED_RANGE.min,
      maximum: SPEED_RANGE.max,
      default: 1,
      description: 'Speaking-rate multiplier.',
    },
  },
});

/** The voice settings a voice keeps (`GET /v1/voices/{id}/settings`, `/voices/settings/default`). */
export const storedVoiceSettingsSchema = (): JsonObject => ({
  type: 'object',
  required: ['stability', 'similarity_boost', 'style', 'use_speaker_boost'],
  properties: {
    stability: { type: 'number', minimum: 0, maximum: 1 },
    similarity_boost: { type: 'number', minimum: 0, maximum: 1 },
    style: { type: 'number', minimum: 0, maximum: 1 },
    use_speaker_boost: { type: 'boolean' },
  },
});

/** The models served here; the hosted API's ids are accepted too (docs/speech.md, "Models"), one given as an example. */
const servedModelIds = () => [...MODELS.map((m) => m.model_id), NEURAL_MODEL_ID];

const nullableText = (description: string): JsonObject => ({
  type: ['string', 'null'],
  maxLength: MAX_TEXT_CHARS,
  description,
});

/** The body of the four text-to-speech routes. */
export const textToSpeechRequestSchema = (): JsonObject => ({
  type: 'object',
  required: ['text'],
  properties: {
    text: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_TEXT_CHARS,
      pattern: '\\S',
      description: `The text to speak, 1 to ${MAX_TEXT_CHARS} characters (Unicode code points; the limit is \`SPEECH_MAX_TEXT_CHARS\`), not only whitespace. Longer: 400 \`text_too_long\`.`,
    },
    model_id: {
      type: ['string', 'null'],
      default: DEFAULT_MODEL_ID,
      examples: [...servedModelIds(), 'eleven_multilingual_v2'],
      description:
        'A model of `GET /v1/models`, or one of the hosted API’s model ids (`eleven_multilingual_v2`, `eleven_flash_v2_5`, …; docs/speech.md, “Models”), which run a model served here. Anything else: 400 `model_not_found`.',
    },
    voice_settings: { oneOf: [{ $ref: '#/components/schemas/VoiceSettings' }, { type: 'null' }] },
    output_format: {
      oneOf: [{ $ref: '#/components/schemas/OutputFormat' }, { type: 'null' }],
      description: 'Also taken from the query string; the body wins.',
    },
    language_code: {
      type: ['string', 'null'],
      examples: LANGUAGES.slice(0, 6).map((l) => l.id),
      description:
        'ISO 639-1 or a BCP 47 tag with an eSpeak NG variant (the list: `GET /v1/models` → `languages`); case-insensitive, `_` for `-`; a region without its own variant falls back to its language. Unknown: 400 `bad_request`.',
    },
    optimize_streaming_latency: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 4,
      default: 0,
      description: 'Accepted; every level gets the same short first piece of audio.',
    },
    seed: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 4294967295,
      description: 'The same request with the same seed gives the same bytes.',
    },
    apply_text_normalization: {
      type: 'string',
      enum: ['auto', 'on', 'off'],
      default: 'auto',
      description: 'Accepted; the engine always normalises.',
    },
    previous_text: nullableText('Accepted, no effect.'),
    next_text: nullableText('Accepted, no effect.'),
    previous_request_ids: { type: 'array', items: { type: 'string' }, description: 'Accepted and ignored.' },
    next_request_ids: { type: 'array', items: { type: 'string' }, description: 'Accepted and ignored.' },
    pronunciation_dictionary_locators: {
      type: 'array',
      items: { type: 'object' },
      description: 'Accepted and ignored.',
    },
    use_pvc_as_ivc: { type: 'boolean', description: 'Accepted and ignored.' },
    apply_language_text_normalization: { type: 'boolean', description: 'Accepted and ignored.' },
  },
});

const timeList: JsonObject = { type: 'array', items: { type: 'number', minimum: 0 } };

/** The characters of a text and when each is spoken, in seconds from the start of the audio. */
export const alignmentSchema = (): JsonObject => ({
  type: 'object',
  required: ['characters', 'character_start_times_seconds', 'character_end_times_seconds'],
  properties: {
    characters: { type: 'array', items: { type: 'string' } },
    character_start_times_seconds: timeList,
    character_end_times_seconds: timeList,
  },
});

const nullableAlignment: JsonObject = {
  oneOf: [{ $ref: '#/components/schemas/CharacterAlignment' }, { type: 'null' }],
};

/** `with-timestamps` (the whole answer) and each line of `stream/with-timestamps`. */
export const audioWithTimestampsSchema = (): JsonObject => ({
  type: 'object',
  required: ['audio_base64', 'alignment', 'normalized_alignment'],
  properties: {
    audio_base64: {
      type: 'string',
      contentEncoding: 'base64',
      description: 'The audio file (or, streamed, the audio since the previous line), base64.',
    },
    alignment: {
      ...nullableAlignment,
      description:
        'Over the text as sent; `null` only on a streamed last line that carries the encoder’s remaining audio.',
    },
    normalized_alignment: {
      ...nullableAlignment,
      description: 'Over the text as the engine read it (whitespace runs made one space).',
    },
  },
});

/** A model of `GET /v1/models` (`Model` of the engine's catalogue). */
export const modelSchema = (): JsonObject => ({
  type: 'object',
  required: [
    'model_id',
    'name',
    'can_be_finetuned',
    'can_do_text_to_speech',
    'can_do_voice_conversion',
    'can_use_style',
    'can_use_speaker_boost',
    'serves_provided_models',
    'token_cost_factor',
    'description',
    'languages',
  ],
  properties: {
    model_id: { type: 'string', enum: servedModelIds() },
    name: { type: 'string' },
    can_be_finetuned: { type: 'boolean' },
    can_do_text_to_speech: { type: 'boolean' },
    can_do_voice_conversion: { type: 'boolean' },
    can_use_style: { type: 'boolean' },
    can_use_speaker_boost: { type: 'boolean' },
    serves_provided_models: { type: 'null' },
    token_cost_factor: { type: 'number' },
    description: { type: 'string' },
    languages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['language_id', 'name'],
        properties: { language_id: { type: 'string' }, name: { type: 'string' } },
      },
    },
  },
});

/** `GET /v1/models`' answer for the default model, its languages cut to three. */
export const modelsExample = (): JsonObject => ({
  models: MODELS.map((m) => ({
    model_id: m.model_id,
    name: m.name,
    can_be_finetuned: m.can_be_finetuned,
    can_do_text_to_speech: m.can_do_text_to_speech,
    can_do_voice_conversion: m.can_do_voice_conversion,
    can_use_style: m.can_use_style,
    can_use_speaker_boost: m.can_use_speaker_boost,
    serves_provided_models: null,
    token_cost_factor: m.token_cost_factor,
    description: m.description,
    languages: m.languages.slice(0, 3).map((l) => ({ language_id: l.language_id, name: l.name })),
  })),
});

const HI = {
  characters: ['H', 'i', '.'],
  character_start_times_seconds: [0, 0.085, 0.17],
  character_end_times_seconds: [0.085, 0.17, 0.402],
};

/** `with-timestamps` for the text "Hi." (the audio shortened). */
export const audioWithTimestampsExample = (): JsonObject => ({
  audio_base64: '//uQxAAAAAABpBQAACLFJ+LDO7AA…',
  alignment: HI,
  normalized_alignment: HI,
});
