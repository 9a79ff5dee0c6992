import { z } from 'zod/v4';
import {
  DEFAULT_MODEL_ID,
  DEFAULT_OUTPUT_FORMAT,
  LANGUAGES,
  OUTPUT_FORMAT_ALIASES,
  OUTPUT_FORMATS,
  resolveLanguage,
} from '@platform/speech-engine';
import { SERVED_MODEL_IDS } from './models';
import { pronunciationLocators } from './pronunciation-dictionaries';
import { voiceSettings } from './voice-settings';

/** The `output_format` values: every codec descriptor's formats (libs/speech-engine) and their aliases. */
const OUTPUT_FORMAT_IDS: readonly string[] = [
  ...OUTPUT_FORMATS.map((f) => f.id),
  ...Object.keys(OUTPUT_FORMAT_ALIASES),
];

const quoted = (value: unknown, max: number) => JSON.stringify(String(value).slice(0, max));

const paidFormats = OUTPUT_FORMATS.filter((f) => f.minimumPlan)
  .map((f) => `\`${f.id}\` (${f.minimumPlan})`)
  .join(', ');

/** An output format: every codec descriptor's formats, the official SDKs' list. */
export const outputFormat = z
  .enum(OUTPUT_FORMAT_IDS, {
    error: (issue) =>
      typeof issue.input === 'string'
        ? `output_format ${quoted(issue.input, 40)} is not supported; see docs/speech.md`
        : 'output_format must be a string',
  })
  .meta({
    default: DEFAULT_OUTPUT_FORMAT,
    description:
      '`<codec>_<sample rate>[_<bit rate>]`. Formats kept for paid plans, with the cheapest plan that may ask for them (others: 403 `subscription_required`): ' +
      `${paidFormats}.`,
  });

/** `output_format`: not given (or null) is the default format. */
export const outputFormatParam = outputFormat.nullish();

/** `language_code`: ISO 639-1, a language of the engine's list; null is "not given". */
export const languageCodeParam = z
  .string({ error: 'language_code must be a string' })
  .refine((code) => resolveLanguage(code) !== null, {
    error: (issue) =>
      `language_code ${quoted(issue.input, 40)} is not a language this model speaks; see GET /v1/models`,
  })
  .nullish()
  .meta({
    examples: LANGUAGES.slice(0, 6).map((l) => l.id),
    description:
      'ISO 639-1 or a BCP 47 tag with an eSpeak NG variant (the list: `GET /v1/models` → `languages`); case-insensitive, `_` for `-`; a region without its own variant falls back to its language. Unknown: 400 `bad_request`.',
  });

const MAX_SEED = 4_294_967_295;

/** A whole number in [min, max], as a JSON number or (query string) its digits; null is "not given". */
const wholeNumber = (name: string, min: number, max: number, description: string) => {
  const message = `${name} must be a whole number from ${min} to ${max}`;
  return z
    .preprocess(
      (value) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value),
      z
        .number({ error: message })
        .int({ error: message })
        .min(min, { error: message })
        .max(max, { error: message })
        .nullish(),
    )
    .optional()
    .meta({ description });
};

const contextText = (name: string, maxChars: number) =>
  z
    .string({ error: `${name} must be a string` })
    .refine((text) => [...text].length <= maxChars, { error: `${name} is longer than ${maxChars} characters` })
    .nullish()
    .meta({ maxLength: maxChars, description: 'Accepted, no effect.' });

/** Fields the hosted API defines that are accepted and ignored here: documented, not checked. */
const ignored = (shape: { [keyword: string]: unknown }) =>
  z
    .unknown()
    .optional()
    .meta({ ...shape, description: 'Accepted and ignored.' });

/**
 * The hosted API's synthesis options the official SDKs send (docs/speech.md, "Request options"), in
 * the JSON body or the query string; `maxChars` bounds `previous_text` and `next_text` as it does `text`.
 */
export const requestOptions = (maxChars: number) =>
  z.object({
    apply_text_normalization: z
      .enum(['auto', 'on', 'off'], { error: 'apply_text_normalization must be "auto", "on" or "off"' })
      .nullish()
      .meta({ default: 'auto', description: 'Accepted; the engine always normalises.' }),
    optimize_streaming_latency: wholeNumber(
      'optimize_streaming_latency',
      0,
      4,
      'Accepted; every level gets the same short first piece of audio.',
    ),
    seed: wholeNumber('seed', 0, MAX_SEED, 'The same request with the same seed gives the same bytes.'),
    previous_text: contextText('previous_text', maxChars),
    next_text: contextText('next_text', maxChars),
  });
export type RequestOptionsInput = z.output<ReturnType<typeof requestOptions>>;

/**
 * `POST /v1/text-to-speech/{voice_id}` (and `/stream`, `/with-timestamps`, `/stream/with-timestamps`):
 * the JSON body, with `output_format` and the options merged in from the query string (the body wins).
 * `text` is at most `maxChars` characters as a person counts them (code points, the unit quotas
 * charge): longer is 400 `text_too_long`, the status the issue's `params.status` names.
 */
export const textToSpeechRequest = (maxChars: number) =>
  z.object(
    {
      text: z
        .string({ error: 'text is required and must be a string' })
        .regex(/\S/, { error: 'text must not be empty' })
        .refine((text) => [...text].length <= maxChars, {
          error: (issue) => `text is ${[...(issue.input as string)].length} characters; the maximum is ${maxChars}`,
          params: { status: 'text_too_long' },
        })
        .meta({
          minLength: 1,
          maxLength: maxChars,
          description: `The text to speak, 1 to ${maxChars} characters (Unicode code points; the limit is \`SPEECH_MAX_TEXT_CHARS\`), not only whitespace. Longer: 400 \`text_too_long\`.`,
        }),
      model_id: z
        .string({ error: 'model_id must be a string' })
        .nullish()
        .meta({
          default: DEFAULT_MODEL_ID,
          examples: [...SERVED_MODEL_IDS, 'eleven_multilingual_v2'],
          description:
            'A model of `GET /v1/models`, or one of the hosted API’s model ids (`eleven_multilingual_v2`, `eleven_flash_v2_5`, …; docs/speech.md, “Models”), which run a model served here. Anything else: 400 `model_not_found`.',
        }),
      output_format: outputFormatParam.meta({ description: 'Also taken from the query string; the body wins.' }),
      language_code: languageCodeParam,
      voice_settings: voiceSettings.nullish(),
      ...requestOptions(maxChars).shape,
      previous_request_ids: ignored({ type: 'array', items: { type: 'string' } }),
      next_request_ids: ignored({ type: 'array', items: { type: 'string' } }),
      pronunciation_dictionary_locators: pronunciationLocators.meta({
        description:
          'At most 3 of the account’s pronunciation dictionaries, each at `version_id` or (without one) its latest version, applied in this order (docs/speech.md, “Pronunciation dictionaries”). An unknown or another account’s dictionary: 404, before anything is charged.',
      }),
      use_pvc_as_ivc: ignored({ type: 'boolean' }),
      apply_language_text_normalization: ignored({ type: 'boolean' }),
    },
    { error: 'request body must be a JSON object' },
  );
export type TextToSpeechRequest = z.output<ReturnType<typeof textToSpeechRequest>>;
