import { OPENAI_RESPONSE_FORMATS, openAiErrorType } from '@platform/contracts';
import { resolveOutputFormat } from '@platform/speech-engine';
import { jsonContent, schemaRef, type JsonObject } from '../json-helpers';
import { anyCredential } from '../security';

/** The media types (without parameters, as `audioMediaTypes`) of the formats made here (OPENAI_RESPONSE_FORMATS). */
const mediaTypes = (): string[] => [
  ...new Set(
    Object.values(OPENAI_RESPONSE_FORMATS).flatMap((id) =>
      id ? [resolveOutputFormat(id)!.contentType.split(';')[0]!] : [],
    ),
  ),
];

/** Each status the operation answers, with the `code` values it carries (docs/speech.md, "OpenAI speech API"). */
const ERRORS: Record<number, [string, string, string | null, string | null]> = {
  400: [
    'Malformed input (`invalid_value`, `bad_request`), `input` over the limit (`text_too_long`), an unknown model (`model_not_found`), `aac` or `flac` (`unsupported_response_format`).',
    'response_format aac is not supported here; use mp3, opus, wav or pcm',
    'unsupported_response_format',
    'response_format',
  ],
  401: [
    'No credential, an unknown or revoked key or token, or the month’s characters used up.',
    'Invalid API key.',
    'invalid_api_key',
    null,
  ],
  403: [
    'A credential without `speech:write`, or a format the plan does not include.',
    'This endpoint needs the scope speech:write.',
    'insufficient_scope',
    null,
  ],
  404: [
    'A voice that does not exist for this account.',
    'voice "NoSuchVoice" does not exist',
    'voice_not_found',
    'voice',
  ],
  413: ['A body over 64 KiB.', 'request body is too large', 'text_too_long', null],
  429: [
    'A rate or concurrency limit (`rate_limit_exceeded`, with `Retry-After`), or the character quota (`quota_exceeded`).',
    'Too many requests; retry after 1 s.',
    'rate_limit_exceeded',
    null,
  ],
  500: ['A bug; never caused by input.', 'internal server error', null, null],
  502: ['The synthesis engine failed on the worker.', 'synthesis failed: the speech engine failed', null, null],
  503: [
    'Workers, Redis or the authorization server temporarily unavailable, or the gateway shutting down; retry (`Retry-After` when given).',
    'all synthesis workers are busy; try again shortly',
    null,
    null,
  ],
};

const RETRY_AFTER: JsonObject = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
};

function openAiErrors(): JsonObject {
  const responses: JsonObject = {};
  for (const [status, [description, message, code, param]] of Object.entries(ERRORS)) {
    const httpStatus = Number(status);
    responses[status] = {
      description,
      ...(httpStatus === 429 || httpStatus === 503 ? { headers: RETRY_AFTER } : {}),
      content: jsonContent(schemaRef('OpenAiError'), {
        error: { message, type: openAiErrorType(httpStatus), code, param },
      }),
    };
  }
  return responses;
}

/** OpenAI's speech API (docs/speech.md, "OpenAI speech API"), its request and events from the contract. */
export const openAiPaths = (): JsonObject => ({
  '/v1/audio/speech': {
    post: {
      operationId: 'createSpeechOpenAi',
      tags: ['OpenAI speech API'],
      summary: 'Text to speech as OpenAI’s API and SDKs call it',
      description:
        'OpenAI’s `POST /v1/audio/speech` (`base_url=<gateway>/v1`): the same synthesis, plans, quotas, history and charging as `POST /v1/text-to-speech/{voice_id}/stream`, OpenAI’s models, voices and formats mapped onto this platform’s. Every error, the gateway’s own included, is `{"error": {"message", "type", "code", "param"}}`.',
      security: anyCredential('speech:write'),
      requestBody: {
        required: true,
        description: 'JSON (any content type is read as JSON), at most 64 KiB.',
        content: jsonContent(schemaRef('OpenAiSpeechRequest'), {
          model: 'gpt-4o-mini-tts',
          voice: 'alloy',
          input: 'Hello from the platform.',
          response_format: 'pcm',
        }),
      },
      responses: {
        200: {
          description:
            '`stream_format: "audio"`: the audio, chunked as it is made, in the `response_format`. `stream_format: "sse"`: `text/event-stream`, one `data:` line per event (`OpenAiSpeechEvent`).',
          headers: {
            'history-item-id': { description: 'The generation’s history item.', schema: { type: 'string' } },
          },
          content: {
            ...Object.fromEntries(
              mediaTypes().map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]),
            ),
            'text/event-stream': { schema: schemaRef('OpenAiSpeechEvent') },
          },
        },
        ...openAiErrors(),
      },
    },
  },
});
