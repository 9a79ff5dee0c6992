import { z } from 'zod/v4';
import { SPEED_RANGE } from '@platform/speech-engine';

/**
 * OpenAI's speech API, `POST /v1/audio/speech`, as OpenAI's SDKs call it (docs/speech.md, "OpenAI
 * speech API"): the request, the error body and the tables that map OpenAI's names onto this
 * platform's models, voices and output formats. The gateway validates with these and the speech
 * OpenAPI document is written from them.
 */

/** OpenAI's own input limit, in characters; the platform's own (`SPEECH_MAX_TEXT_CHARS`) applies too. */
export const OPENAI_MAX_INPUT_CHARS = 4096;

/**
 * OpenAI's model names and what each runs here: `tts-1` the fastest model (eSpeak NG), the others
 * the best one for the request's language (the neural model for English where it is installed,
 * as the hosted API's model ids do). Any model id of `GET /v1/models` is taken as itself.
 */
export const OPENAI_SPEECH_MODELS = {
  'tts-1': 'fastest',
  'tts-1-hd': 'best',
  'gpt-4o-mini-tts': 'best',
  // OpenAI's dated snapshots of the same model.
  'gpt-4o-mini-tts-2025-03-20': 'best',
  'gpt-4o-mini-tts-2025-12-15': 'best',
} as const satisfies Record<string, 'fastest' | 'best'>;

/** OpenAI's voice names, each mapped to a premade English voice of a like gender and character. */
export const OPENAI_VOICES = {
  alloy: '21m00Tcm4TlvDq8ikWAM', // Rachel: female, American, narration
  ash: 'pNInz6obpgDQGcFmaJgB', // Adam: male, American, narration
  ballad: 'ErXwobaYiN019PkySvjV', // Antoni: male, British
  coral: 'EXAVITQu4vr4xnSDxMaL', // Bella: female, American, conversational
  echo: 'TxGEqnHWrfWFTfGW9XjX', // Josh: male, conversational
  fable: 'AZnzlk1XvdvUeBnXmlld', // Domi: female, British, narration
  onyx: 'jo5Pq8Nr2Lm7Kv4Ws9Xz', // Joe: male, deep, the neural model's own speaker
  nova: 'MF3mGyEYCl7XYWbV9V6O', // Elli: female, young, conversational
  sage: '21m00Tcm4TlvDq8ikWAM', // Rachel
  shimmer: 'EXAVITQu4vr4xnSDxMaL', // Bella
  verse: 'VR6AewLTigWG4xSOukaG', // Arnold: male, characters
  marin: 'MF3mGyEYCl7XYWbV9V6O', // Elli
  cedar: 'pNInz6obpgDQGcFmaJgB', // Adam
} as const satisfies Record<string, string>;

/**
 * OpenAI's `response_format` values and the output format (libs/speech-engine/src/codecs) each is
 * made as; null: no codec here makes it (400). `pcm` is raw 24 kHz 16-bit little-endian mono, as OpenAI's.
 */
export const OPENAI_RESPONSE_FORMATS = {
  mp3: 'mp3_44100_128',
  opus: 'opus_48000_64',
  aac: null,
  flac: null,
  wav: 'wav_24000',
  pcm: 'pcm_24000',
} as const satisfies Record<string, string | null>;
export type OpenAiResponseFormat = keyof typeof OPENAI_RESPONSE_FORMATS;

export const OPENAI_SPEED_RANGE = { min: 0.25, max: 4 } as const;

const names = (record: object) =>
  Object.keys(record)
    .map((n) => `\`${n}\``)
    .join(', ');

/** `POST /v1/audio/speech`: the JSON body. `input` is bounded by OpenAI's limit and `maxChars`, whichever is lower. */
export const openAiSpeechRequest = (maxChars: number) => {
  const inputMax = Math.min(OPENAI_MAX_INPUT_CHARS, maxChars);
  const speedMessage = `speed must be a number from ${OPENAI_SPEED_RANGE.min} to ${OPENAI_SPEED_RANGE.max}`;
  return z.object(
    {
      model: z
        .string({ error: 'model is required and must be a string' })
        .min(1, { error: 'model must not be empty' })
        .meta({
          examples: Object.keys(OPENAI_SPEECH_MODELS),
          description: `${names(OPENAI_SPEECH_MODELS)} (\`tts-1\`: eSpeak NG, the fastest; the others: the neural model for English where it is installed), or any model id of \`GET /v1/models\`. Unknown: 400 \`model_not_found\`.`,
        }),
      voice: z
        // OpenAI's custom-voice reference, `{"id": "..."}`, names a voice as its id does.
        .union([z.string().min(1), z.object({ id: z.string().min(1) }).transform((voice) => voice.id)], {
          error: 'voice is required and must be a non-empty string or {"id": "<voice id>"}',
        })
        .meta({
          examples: Object.keys(OPENAI_VOICES),
          description: `One of OpenAI's voices (${names(OPENAI_VOICES)}, each a premade voice here) or any voice id of \`GET /v1/voices\`, as a string or as OpenAI's \`{"id": "<voice id>"}\`. Unknown: 404 \`voice_not_found\`.`,
        }),
      input: z
        .string({ error: 'input is required and must be a string' })
        .regex(/\S/, { error: 'input must not be empty' })
        .refine((text) => [...text].length <= inputMax, {
          error: (issue) => `input is ${[...(issue.input as string)].length} characters; the maximum is ${inputMax}`,
          params: { code: 'text_too_long' },
        })
        .meta({ minLength: 1, maxLength: inputMax, description: `The text to speak, 1 to ${inputMax} characters.` }),
      response_format: z
        .enum(Object.keys(OPENAI_RESPONSE_FORMATS) as [OpenAiResponseFormat, ...OpenAiResponseFormat[]], {
          error: `response_format must be one of ${Object.keys(OPENAI_RESPONSE_FORMATS).join(', ')}`,
        })
        .default('mp3')
        .meta({
          description:
            '`mp3` (44.1 kHz 128 kbit/s), `opus` (Ogg, 48 kHz), `wav` and `pcm` (24 kHz 16-bit mono; `pcm` raw little-endian). `aac` and `flac` are not made here: 400 `unsupported_response_format`.',
        }),
      speed: z
        .number({ error: speedMessage })
        .min(OPENAI_SPEED_RANGE.min, { error: speedMessage })
        .max(OPENAI_SPEED_RANGE.max, { error: speedMessage })
        .default(1)
        .meta({
          description: `${OPENAI_SPEED_RANGE.min} to ${OPENAI_SPEED_RANGE.max}, clamped to the engine's ${SPEED_RANGE.min} to ${SPEED_RANGE.max} (\`voice_settings.speed\`).`,
        }),
      instructions: z
        .string({ error: 'instructions must be a string' })
        .refine((text) => [...text].length <= OPENAI_MAX_INPUT_CHARS, {
          error: `instructions is longer than ${OPENAI_MAX_INPUT_CHARS} characters`,
        })
        .optional()
        .meta({ description: 'Accepted and ignored: the models here take no style prompt.' }),
      stream_format: z
        .enum(['audio', 'sse'], { error: 'stream_format must be "audio" or "sse"' })
        .default('audio')
        .meta({
          description:
            '`audio`: the audio bytes, chunked as they are made. `sse`: Server-Sent Events, `speech.audio.delta` events with base64 audio, then `speech.audio.done`.',
        }),
    },
    { error: 'request body must be a JSON object' },
  );
};
export type OpenAiSpeechRequest = z.output<ReturnType<typeof openAiSpeechRequest>>;

/** OpenAI's error body: `{error: {message, type, code, param}}`, on every refusal of `/v1/audio/*`. */
export const openAiErrorBody = z
  .looseObject({
    error: z.looseObject({
      message: z.string(),
      type: z.string(),
      code: z.string().nullable(),
      param: z.string().nullable(),
    }),
  })
  .meta({ description: "OpenAI's error body. `type` follows the HTTP status, `code` is machine-readable." });
export type OpenAiErrorBody = z.output<typeof openAiErrorBody>;

/** OpenAI's error `type` for an HTTP status. */
export function openAiErrorType(httpStatus: number): string {
  if (httpStatus === 401) return 'authentication_error';
  if (httpStatus === 403) return 'permission_error';
  if (httpStatus === 429) return 'rate_limit_error';
  if (httpStatus >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** The error body for a status, message, machine code and (when one field is at fault) its name. */
export function openAiError(
  httpStatus: number,
  message: string,
  code: string | null,
  param: string | null = null,
): OpenAiErrorBody {
  return { error: { message, type: openAiErrorType(httpStatus), code, param } };
}

/** One Server-Sent Event of `stream_format: "sse"`. */
export const openAiSpeechEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('speech.audio.delta'), audio: z.string().meta({ description: 'Base64 audio bytes.' }) }),
  z.object({
    type: z.literal('speech.audio.done'),
    usage: z
      .object({ input_tokens: z.number().int(), output_tokens: z.number().int(), total_tokens: z.number().int() })
      .meta({ description: 'Characters of `input` as `input_tokens` (the unit charged here); `output_tokens` 0.' }),
  }),
]);
export type OpenAiSpeechEvent = z.output<typeof openAiSpeechEvent>;
