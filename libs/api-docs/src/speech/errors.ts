import type { SpeechErrorStatus } from '@platform/errors';
import type { JsonObject } from './json-helpers';

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
      description:
        'The authentication schemes the gateway takes (RFC 6750 Bearer, RFC 9449 DPoP), with the error of a refused token.',
      schema: { type: 'string' },
    },
  },
  429: {
    'Retry-After': {
      description: 'Seconds to wait before retrying (rate and concurrency limits).',
      schema: { type: 'integer', minimum: 0 },
    },
  },
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

/** A message the API gives with each status, for the examples. */
const EXAMPLE_MESSAGES: Record<SpeechErrorStatus, string> = {
  invalid_api_key: 'Invalid API key.',
  unauthorized: 'An API key is required for this endpoint.',
  quota_exceeded: 'The voice limit of the free plan (3) is reached.',
  character_limit_exceeded: 'This request needs 120 characters; 80 are left this month.',
  content_violation: 'The text was refused by content moderation.',
  text_too_long: 'text is 5200 characters; the maximum is 5000',
  voice_not_found: 'voice "nobody" does not exist',
  model_not_found: 'model "nope" does not exist; see GET /v1/models',
  subscription_required: 'output_format pcm_44100 needs the pro plan or above; this account is on the free plan',
  too_many_requests: 'Too many requests; retry after 1 s.',
  bad_request: 'text must not be empty',
  error: 'internal server error',
};

/** `error` covers several HTTP statuses; what it says with each. */
const ERROR_MESSAGES: Record<number, string> = {
  404: 'A history item with the id 4kRr0cQ9Xw2mZp7LbN1v was not found.',
  409: 'The voice changed while it was being edited; retry.',
  502: 'synthesis failed: the speech engine failed',
  503: 'no synthesis worker answered in time; try again',
};

function errorResponse(code: number, statuses: readonly SpeechErrorStatus[]): JsonObject {
  const status = statuses[0] ?? 'error';
  const example = {
    detail: { status, message: (status === 'error' ? ERROR_MESSAGES[code] : undefined) ?? EXAMPLE_MESSAGES[status] },
  };
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
    const statuses = new Set<SpeechErrorStatus>([...(EVERY_OPERATION[code] ?? []), ...(operation[code] ?? [])]);
    responses[String(code)] = errorResponse(code, [...statuses]);
  }
  return responses;
}
