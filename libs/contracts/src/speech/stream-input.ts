import { z } from 'zod/v4';
import { pronunciationLocators } from './pronunciation-dictionaries';
import { responseShapeParam } from './response-shape';
import { languageCodeParam, outputFormatParam, requestOptions } from './text-to-speech';
import { voiceSettings } from './voice-settings';

/**
 * The WebSocket `/v1/text-to-speech/{voice_id}/stream-input` (docs/speech.md, "WebSocket stream-input"):
 * the messages the client sends and the gateway answers, read by the gateway and written into the
 * AsyncAPI document (libs/api-docs/src/asyncapi) from here.
 */

/** The hosted API's bounds of a `chunk_length_schedule` entry, in characters, and of its length. */
export const CHUNK_LENGTH_RANGE = { min: 50, max: 500, entries: 50 } as const;

const SCHEDULE_MESSAGE = `generation_config.chunk_length_schedule must be a list of whole numbers from ${CHUNK_LENGTH_RANGE.min} to ${CHUNK_LENGTH_RANGE.max}`;

/** The first message's `generation_config`; not given or null: generate at each sentence end. */
export const generationConfig = z
  .object(
    {
      chunk_length_schedule: z
        .array(
          z
            .int({ error: SCHEDULE_MESSAGE })
            .min(CHUNK_LENGTH_RANGE.min, { error: SCHEDULE_MESSAGE })
            .max(CHUNK_LENGTH_RANGE.max, { error: SCHEDULE_MESSAGE }),
          { error: SCHEDULE_MESSAGE },
        )
        .min(1, { error: SCHEDULE_MESSAGE })
        .max(CHUNK_LENGTH_RANGE.entries, { error: SCHEDULE_MESSAGE })
        .nullish()
        .meta({
          description:
            'Generation n starts once the buffer holds entry n’s characters (the last repeats), cut at the last space.',
        }),
    },
    { error: 'generation_config must be an object' },
  )
  .nullish();

/** A field read only when it has its type: any other value counts as not sent, as the hosted API reads it. */
export const lenient = <Schema extends z.ZodType>(schema: Schema) => schema.optional().catch(undefined);

const textFields = {
  flush: lenient(z.boolean()).meta({ description: 'Synthesise everything buffered now, even without a sentence end.' }),
  try_trigger_generation: lenient(z.boolean()).meta({ description: 'Read as `flush`.' }),
};

/**
 * Any client message as the gateway reads it: a JSON object with a string `text` (anything else is
 * malformed). The first message's `voice_settings` and `generation_config` are kept as sent and checked
 * once the client is authenticated (`initialiseMessage` below describes them).
 */
export const streamInputMessage = z.object({
  text: z.string(),
  ...textFields,
  xi_api_key: lenient(z.string()).meta({ description: 'The API key, when it did not come with the upgrade.' }),
  voice_id: lenient(z.string()),
  voice_settings: z.unknown(),
  generation_config: z.unknown(),
  pronunciation_dictionary_locators: z.unknown(),
});

/** The first message: initialise and authenticate (the text is usually a single space). */
export const initialiseMessage = streamInputMessage.extend({
  text: z.string().meta({ description: 'Usually a single space.' }),
  voice_settings: voiceSettings.nullish(),
  generation_config: generationConfig,
  pronunciation_dictionary_locators: pronunciationLocators,
});

/** Text to synthesise (each complete sentence is synthesised; `maxLength`: `SPEECH_MAX_TEXT_CHARS`'s default). */
export const textMessage = (maxChars: number) => z.object({ text: z.string().min(1).max(maxChars), ...textFields });

/** The end of input: the rest is synthesised, then `{"isFinal": true}` and close 1000. */
export const endOfInputMessage = z.object({ text: z.literal('') });

/** When each character is spoken, in milliseconds from the start of this message's audio. */
const alignment = z
  .looseObject({
    chars: z.array(z.string()),
    charStartTimesMs: z.array(z.int().min(0)),
    charDurationsMs: z.array(z.int().min(0)),
  })
  .nullable()
  .meta({
    description:
      "The characters of this message's piece of text and when each is spoken, in milliseconds from the start of this message's audio.",
  });

/** One piece of audio in the hosted API's JSON framing; `isFinal` is null in every one of them. */
export const audioMessage = z.looseObject({
  audio: z.string().meta({ contentEncoding: 'base64' }),
  isFinal: z.null(),
  alignment,
  normalizedAlignment: alignment,
});
export type AudioMessage = z.output<typeof audioMessage>;

/** After the end of input and the last audio; a close 1000 follows. */
export const finalMessage = z.looseObject({ isFinal: z.literal(true) });
export type FinalMessage = z.output<typeof finalMessage>;

/** `inactivity_timeout`: seconds without a message before the gateway closes, 1–180 (the default is the gateway's). */
export const inactivityTimeoutParam = z
  .string()
  .refine(
    (value) => {
      const seconds = Number(value);
      return Number.isInteger(seconds) && seconds >= 1 && seconds <= 180;
    },
    { error: 'inactivity_timeout must be 1–180 seconds' },
  )
  .transform(Number)
  .optional()
  .meta({ type: 'integer', minimum: 1, maximum: 180, default: 20 });

/**
 * The upgrade's query string: the synthesis request but its text and settings (the first message's),
 * the framing, and the key when no header carries it. `maxChars` bounds `previous_text` and `next_text`.
 */
export const streamInputQuery = (maxChars: number) =>
  z.object({
    model_id: z.string().optional().meta({ description: 'When the path names a voice.' }),
    voice_id: z.string().optional().meta({ description: 'When the path names a model.' }),
    output_format: outputFormatParam,
    language_code: languageCodeParam,
    inactivity_timeout: inactivityTimeoutParam,
    shape: responseShapeParam.meta({ description: 'hosted: JSON messages; document: binary frames.' }),
    message_format: z.enum(['json']).optional().meta({ description: 'json: JSON messages, as `shape=hosted`.' }),
    sync_alignment: z.enum(['true', 'false']).optional().meta({ description: 'true: alignment with each message.' }),
    xi_api_key: z.string().optional(),
    ...requestOptions(maxChars).shape,
  });
