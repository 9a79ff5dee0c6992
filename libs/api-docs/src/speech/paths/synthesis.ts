import { previewFileParam, responseShapeParam, synthesisVoiceIdParam } from '@platform/contracts';
import { PREMADE_VOICES } from '@platform/speech-engine';
import { pathParameter, queryParameter } from '../../contract-schemas';
import { speechErrors } from '../errors';
import { binaryResponse, jsonContent, schemaRef, type JsonObject } from '../json-helpers';
import { audioMediaTypes, audioWithTimestampsExample, MAX_TEXT_CHARS, modelsExample } from '../schemas/synthesis';
import { anyCredential } from '../security';

const EXAMPLE_VOICE = PREMADE_VOICES[0]!.voice_id;

const voiceIdParameter: JsonObject = { ...pathParameter('voice_id', synthesisVoiceIdParam), example: EXAMPLE_VOICE };

const queryParameters: JsonObject[] = [
  {
    name: 'output_format',
    in: 'query',
    description: 'As `output_format` in the body (the body wins).',
    schema: schemaRef('OutputFormat'),
  },
  {
    name: 'optimize_streaming_latency',
    in: 'query',
    description: 'As in the body (the body wins).',
    schema: { type: 'integer', minimum: 0, maximum: 4 },
  },
  { name: 'enable_logging', in: 'query', description: 'Accepted and ignored.', schema: { type: 'boolean' } },
];

const jobHeaders = (withRequestId: boolean): JsonObject => ({
  'history-item-id': {
    description: 'The generation’s id: its history item (`GET /v1/history/{id}`).',
    schema: { type: 'string' },
  },
  ...(withRequestId ? { 'request-id': { description: 'The same id.', schema: { type: 'string' } } } : {}),
});

const requestBody: JsonObject = {
  required: true,
  description: `JSON (any content type is read as JSON), at most 64 KiB; \`text\` at most ${MAX_TEXT_CHARS} characters.`,
  content: jsonContent(schemaRef('TextToSpeechRequest'), {
    text: 'Hello! This is a test.',
    model_id: 'eleven_multilingual_v2',
    language_code: 'en',
    voice_settings: { stability: 0.5, similarity_boost: 0.75 },
  }),
};

/** What synthesis can refuse or fail with, beyond the gateway's own errors. */
const synthesisErrors = () =>
  speechErrors({
    400: ['bad_request', 'text_too_long', 'model_not_found'],
    401: ['character_limit_exceeded'],
    403: ['subscription_required'],
    // `error`: a pronunciation dictionary of `pronunciation_dictionary_locators` that is not the account's.
    404: ['voice_not_found', 'error'],
    413: ['text_too_long'],
    502: ['error'],
  });

function synthesis(summary: string, description: string, operationId: string, ok: JsonObject): JsonObject {
  return {
    post: {
      operationId,
      tags: ['Text to speech'],
      summary,
      description,
      security: anyCredential('speech:write'),
      parameters: [voiceIdParameter, ...queryParameters],
      requestBody,
      responses: { 200: ok, ...synthesisErrors() },
    },
  };
}

export const synthesisPaths = (): JsonObject => ({
  '/v1/text-to-speech/{voice_id}': synthesis(
    'Text to speech: the whole file',
    'Synthesises the text and answers the whole audio file once made, with `Content-Length`. Charged once the client has its last byte; recorded in history.',
    'textToSpeech',
    binaryResponse(
      'The audio in the requested format (`Content-Type` as the format: `audio/pcm;rate=<rate>` for PCM, `audio/ogg;codecs=opus` for Opus).',
      audioMediaTypes(),
      jobHeaders(true),
    ),
  ),
  '/v1/text-to-speech/{voice_id}/stream': synthesis(
    'Text to speech: streamed',
    'The audio as it is made (chunked): the first chunk after the first sentence. The concatenated body is one file of the format. A failure after the first byte cuts the response off without its last chunk.',
    'textToSpeechStream',
    binaryResponse('The audio, chunked.', audioMediaTypes(), jobHeaders(true)),
  ),
  '/v1/text-to-speech/{voice_id}/with-timestamps': synthesis(
    'Text to speech with character timestamps',
    'The whole audio in base64 with the time each character is spoken (the hosted API’s `AudioWithTimestampsResponse`).',
    'textToSpeechWithTimestamps',
    {
      description: 'The audio and its alignments.',
      headers: jobHeaders(true),
      content: jsonContent(schemaRef('AudioWithTimestamps'), audioWithTimestampsExample()),
    },
  ),
  '/v1/text-to-speech/{voice_id}/stream/with-timestamps': synthesis(
    'Text to speech with character timestamps, streamed',
    'Newline-delimited JSON: one `AudioWithTimestamps` object per piece as it is made; times count from the start of the whole audio. A last line with `null` alignments may carry the encoder’s remaining audio.',
    'textToSpeechStreamWithTimestamps',
    {
      description: 'One JSON object per line (`x-json-lines`: the schema is each line’s).',
      headers: jobHeaders(true),
      content: { 'application/x-ndjson': { schema: schemaRef('AudioWithTimestamps'), 'x-json-lines': true } },
    },
  ),
  '/v1/voice-previews/{file}': {
    get: {
      operationId: 'getVoicePreview',
      tags: ['Text to speech'],
      summary: 'A premade voice reading its preview sentence',
      description:
        'MP3 44.1 kHz 128 kbit/s, made once per deployment and then cached. The `preview_url` of premade voices.',
      security: anyCredential('speech:read'),
      parameters: [{ ...pathParameter('file', previewFileParam), example: `${EXAMPLE_VOICE}.mp3` }],
      responses: {
        200: binaryResponse('The preview.', ['audio/mpeg'], { 'Cache-Control': { schema: { type: 'string' } } }),
        ...speechErrors({ 404: ['voice_not_found'], 502: ['error'] }),
      },
    },
  },
  '/v1/models': {
    get: {
      operationId: 'listModels',
      tags: ['Models'],
      summary: 'The models this deployment serves',
      description:
        '`{models: [Model]}`; a client that names an official SDK in `X-Fern-SDK-Name`, or asks with `?shape=hosted`, gets the hosted API’s bare array. Answers carry `Vary: X-Fern-SDK-Name`.',
      security: anyCredential('speech:read'),
      parameters: [
        queryParameter('shape', responseShapeParam),
        {
          name: 'X-Fern-SDK-Name',
          in: 'header',
          description: 'Sent by the official SDKs (`elevenlabs`, `@elevenlabs/elevenlabs-js`): the hosted shape.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        200: {
          description: 'The models.',
          headers: { Vary: { schema: { type: 'string' } } },
          content: jsonContent(
            {
              oneOf: [
                {
                  type: 'object',
                  required: ['models'],
                  properties: { models: { type: 'array', items: schemaRef('Model') } },
                },
                { type: 'array', items: schemaRef('Model') },
              ],
            },
            modelsExample(),
          ),
        },
        ...speechErrors(),
      },
    },
  },
});
