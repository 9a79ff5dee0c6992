import { CodedError, SimpleError, ValidationError } from '@platform/contracts';
import { schemaOf } from '../contract-schemas';
import { jsonResponse, schemaRef, responseRef, type JsonObject } from '../speech/json-helpers';

/** The content REST API's three error shapes, from their contracts (libs/contracts, content `errors.ts`). */
export const contentErrorSchemas: JsonObject = {
  ValidationError: schemaOf(ValidationError),
  SimpleError: schemaOf(SimpleError),
  CodedError: schemaOf(CodedError),
};

const retryAfter: JsonObject = {
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
};

/** One response per status the REST API can answer with an error, each with its shape(s). */
export const contentErrorResponses: JsonObject = {
  BadRequest: jsonResponse(
    'Validation failed (`errors` names each property), or the request could not be read (malformed JSON, a non-canonical path): coded shape.',
    { anyOf: [schemaRef('ValidationError'), schemaRef('CodedError')] },
  ),
  Unauthorized: jsonResponse(
    'No access token, an invalid or expired one, a DPoP proof that does not match, or wrong sign-in credentials.',
    schemaRef('CodedError'),
    { error: { code: 401, message: 'Authentication required' } },
  ),
  Forbidden: jsonResponse(
    'The token lacks the scope, or the caller may not change this resource.',
    schemaRef('SimpleError'),
    {
      error: 'Token lacks the content:write scope',
    },
  ),
  NotFound: jsonResponse('No such resource (`{error}`), or no such route (coded shape).', {
    anyOf: [schemaRef('SimpleError'), schemaRef('CodedError')],
  }),
  Conflict: jsonResponse('A concurrent change won; retry.', schemaRef('CodedError')),
  PayloadTooLarge: jsonResponse('The JSON body is over 512 kB.', schemaRef('CodedError')),
  UnsupportedMediaType: jsonResponse('The body’s encoding or charset is not supported.', schemaRef('CodedError')),
  TooManyRequests: {
    ...jsonResponse(
      'A rate limit of the plan, of the client address, or of sign-in attempts.',
      schemaRef('CodedError'),
    ),
    headers: retryAfter,
  },
  ServerError: jsonResponse('A bug; the message never says more.', schemaRef('CodedError')),
  BadGateway: jsonResponse(
    'The authorization server refused the account for a reason of its own.',
    schemaRef('CodedError'),
  ),
  Unavailable: jsonResponse(
    'A dependency (the content store, the authorization server) is temporarily unavailable; retry.',
    schemaRef('CodedError'),
  ),
};

const BY_STATUS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'ServerError',
  502: 'BadGateway',
  503: 'Unavailable',
};

/** Statuses every operation can answer with: its input, the gateway's limits, bugs and outages. */
const ALWAYS = [400, 429, 500, 503];

/** The `responses` entries for an operation's error statuses (plus those every operation has). */
export function contentErrors(...statuses: number[]): JsonObject {
  const all = [...new Set([...ALWAYS, ...statuses])].sort((a, b) => a - b);
  return Object.fromEntries(all.map((status) => [String(status), responseRef(BY_STATUS[status]!)]));
}
