import type { SpeechErrorStatus } from '@platform/errors';
import type { JsonObject } from './json-helpers';

/**
 * Every `detail.status` of the speech API (docs/speech.md, "Every detail.status and its HTTP status").
 * The type check below fails the build when `@platform/errors` gains or loses a status that is not
 * listed here, so the document cannot drift from the code's list.
 */
export const SPEECH_ERROR_STATUSES = [
  'invalid_api_key',
  'unauthorized',
  'quota_exceeded',
  'character_limit_exceeded',
  'content_violation',
  'text_too_long',
  'voice_not_found',
  'model_not_found',
  'subscription_required',
  'too_many_requests',
  'bad_request',
  'error',
] as const satisfies readonly SpeechErrorStatus[];
type Missing = Exclude<SpeechErrorStatus, (typeof SPEECH_ERROR_STATUSES)[number]>;
const everyStatusListed: Missing extends never ? true : Missing = true;
void everyStatusListed;

/** `{detail: {status, message}}`, every status allowed (the operations narrow it). */
export const speechErrorSchema: JsonObject = {
  type: 'object',
  description: 'The speech API error body. `detail.status` is machine-readable, `detail.message` is for people.',
  required: ['detail'],
  properties: {
    detail: {
      type: 'object',
      required: ['status', 'message'],
      properties: {
        status: { type: 'string', enum: [...SPEECH_ERROR_STATUSES] },
        message: { type: 'string' },
      },
    },
  },
};

type ErrorSpec = Partial<Record<number, readonly SpeechErrorStatus[]>>;

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed input (`bad_request`), a text over the limit (`text_too_long`) or an unknown model (`model_not_found`).',
  401: 'No credential or one without an account (`unauthorized`), an unknown or revoked API key (`invalid_api_key`), or the month’s characters used up (`character_limit_exceeded`).',
  403: 'A credential without the scope the operation needs (`unauthorized`), or an output format the plan does not include (`subscription_required`).',
  404: 'The named resource does not exist for this account.',
  409: 'A voice changed by a concurrent edit; retry.',
  413: 'A JSON body over its limit (`text_too_long`).',
  429: 'A rate or concurrency limit (`too_many_requests`, with `Retry-After`), or a voice quota (`quota_exceeded`).',
  500: 'A bug; never caused by input (`error`).',
  502: 'The synthesis engine failed on the worker (`error`).',
  503: 'A dependency (workers, Redis, the speech database, the authorization server) is temporarily unavailable (`error`); retry.',
};

const HEADERS: Record<number, JsonObject> = {
  401: {
    'WWW-Authenticate': {
      description: 'The authentication schemes the gateway takes (RFC 6750 Bearer, RFC 9449 DPoP), with the error of a refused token.',
      schema: { type: 'string' },
    },
  },
  429: { 'Retry-After': { description: 'Seconds to wait before retrying (rate and concurrency limits).', schema: { type: 'integer', minimum: 0 } } },
};

/**
 * What the gateway itself may answer on every speech operation, before the operation runs: a path it
 * refuses (400), authentication (401/403), rate and concurrency limits (429), the authorization server
 * or Redis unreachable (503), and a bug (500).
 */
const EVERY_OPERATION: ErrorSpec = {
  400: ['bad_request'],
  401: ['invalid_api_key', 'unauthorized'],
  403: ['unauthorized'],
  429: ['too_many_requests'],
  500: ['error'],
  503: ['error'],
};

function errorResponse(code: number, statuses: readonly string[]): JsonObject {
  const example = { detail: { status: statuses[0] ?? 'error', message: DESCRIPTIONS[code] ?? 'error' } };
  return {
    description: DESCRIPTIONS[code] ?? 'An error.',
    ...(HEADERS[code] ? { headers: HEADERS[code] } : {}),
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/SpeechError' },
            { properties: { detail: { properties: { status: { enum: [...statuses] } } } } },
          ],
        },
        example,
      },
    },
  };
}

/** The error responses of one operation: the gateway's own (above) and the operation's. */
export function speechErrors(operation: ErrorSpec = {}): JsonObject {
  const codes = new Set([...Object.keys(EVERY_OPERATION), ...Object.keys(operation)].map(Number));
  const responses: JsonObject = {};
  for (const code of [...codes].sort((a, b) => a - b)) {
    const statuses = new Set([...(EVERY_OPERATION[code] ?? []), ...(operation[code] ?? [])]);
    responses[String(code)] = errorResponse(code, [...statuses]);
  }
  return responses;
}
