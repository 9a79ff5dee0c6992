import { z } from 'zod/v4';
import { DEFAULT_OUTPUT_FORMAT, OUTPUT_FORMATS, resolveLanguage } from '@platform/speech-engine';
import { voiceSettings } from './voice-settings';

/** The `output_format` values: every codec descriptor's formats (libs/speech-engine). */
const OUTPUT_FORMAT_IDS = OUTPUT_FORMATS.map((f) => f.id) as [string, ...string[]];

const quoted = (value: unknown, max: number) => JSON.stringify(String(value).slice(0, max));

/** `output_format`: not given (or null) is the default format. */
export const outputFormatParam = z
  .enum(OUTPUT_FORMAT_IDS, {
    error: (issue) =>
      typeof issue.input === 'string'
        ? `output_format ${quoted(issue.input, 40)} is not supported; see docs/speech.md`
        : 'output_format must be a string',
  })
  .nullish()
  .meta({ default: DEFAULT_OUTPUT_FORMAT });

/** `language_code`: ISO 639-1, a language of the engine's list; null is "not given". */
export const languageCodeParam = z
  .string({ error: 'language_code must be a string' })
  .refine((code) => resolveLanguage(code) !== null, {
    error: (issue) =>
      `language_code ${quoted(issue.input, 40)} is not a language this model speaks; see GET /v1/models`,
  })
  .nullish();

const MAX_SEED = 4_294_967_295;

/** A whole number in [min, max], as a JSON number or (query string) its digits; null is "not given". */
const wholeNumber = (name: string, min: number, max: number) => {
  const message = `${name} must be a whole number from ${min} to ${max}`;
  return z.preprocess(
    (value) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value),
    z
      .number({ error: message })
      .int({ error: message })
      .min(min, { error: message })
      .max(max, { error: message })
      .nullish(),
  );
};

const contextText = (name: string, maxChars: number) =>
  z
    .string({ error: `${name} must be a string` })
    .refine((text) => [...text].length <= maxChars, { error: `${name} is longer than ${maxChars} characters` })
    .nullish();

/**
 * The hosted API's synthesis options the official SDKs send (docs/speech.md, "Request options"), in
 * the JSON body or the query string; `maxChars` bounds `previous_text` and `next_text` as it does `text`.
 */
export const requestOptions = (maxChars: number) =>
  z.object({
    apply_text_normalization: z
      .enum(['auto', 'on', 'off'], { error: 'apply_text_normalization must be "auto", "on" or "off"' })
      .nullish(),
    optimize_streaming_latency: wholeNumber('optimize_streaming_latency', 0, 4),
    seed: wholeNumber('seed', 0, MAX_SEED),
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
        .refine((text) => text.trim().length > 0, { error: 'text must not be empty' })
        .refine((text) => [...text].length <= maxChars, {
          error: (issue) => `text is ${[...(issue.input as string)].length} characters; the maximum is ${maxChars}`,
          params: { status: 'text_too_long' },
        }),
      model_id: z.string({ error: 'model_id must be a string' }).nullish(),
      output_format: outputFormatParam,
      language_code: languageCodeParam,
      voice_settings: voiceSettings.nullish(),
      ...requestOptions(maxChars).shape,
    },
    { error: 'request body must be a JSON object' },
  );
export type TextToSpeechRequest = z.output<ReturnType<typeof textToSpeechRequest>>;
