import { jsonSchemaOf, oauthErrorBody } from '@platform/contracts';
import { jsonResponse, responseRef, schemaRef, type JsonObject } from '../speech/json-helpers';

export const oauthErrorSchemas: JsonObject = { OAuthError: jsonSchemaOf(oauthErrorBody) as JsonObject };

const challenge: JsonObject = {
  'WWW-Authenticate': {
    description:
      'The challenge of RFC 6750 §3 / RFC 9449 §7 (or `Basic` for a client that authenticated with HTTP Basic, RFC 6749 §5.2).',
    schema: { type: 'string' },
  },
};
const retryAfter: JsonObject = {
  'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer', minimum: 0 } },
};
const error = (description: string, headers?: JsonObject): JsonObject => ({
  ...jsonResponse(description, schemaRef('OAuthError')),
  ...(headers ? { headers } : {}),
});

export const oauthErrorResponses: JsonObject = {
  OAuthBadRequest: error(
    'A malformed or missing parameter (`invalid_request`), or the grant’s own refusal (`invalid_grant`, `invalid_scope`, `invalid_target`, `unsupported_grant_type`, `unauthorized_client`, `authorization_pending`, `slow_down`, `expired_token`, `invalid_dpop_proof`, `use_dpop_nonce` with a `DPoP-Nonce` header), or a request object that does not verify (`invalid_request_object`, RFC 9101 §6.3).',
    {
      'DPoP-Nonce': {
        description: 'The nonce to put in the next DPoP proof (RFC 9449 §8).',
        schema: { type: 'string' },
      },
    },
  ),
  OAuthUnauthorized: error(
    'Client authentication failed (`invalid_client`), or the access token is invalid (`invalid_token`).',
    challenge,
  ),
  OAuthForbidden: error(
    'The token lacks the scope (`insufficient_scope`) or the holder may not do this (`access_denied`).',
    challenge,
  ),
  OAuthNotFound: error('No such endpoint or resource (`not_found`).'),
  OAuthConflict: error('The change conflicts with the current state (`conflict`).'),
  OAuthTooLarge: error('The body is over its limit (`invalid_request`).'),
  OAuthTooManyRequests: error(
    'A rate limit of the gateway, of sign-in attempts, or of registration requests per address (`temporarily_unavailable`, REGISTRATION_RATE_LIMIT).',
    retryAfter,
  ),
  // RFC 7591 §3.2.2: the registration endpoints' own codes.
  RegistrationRefused: error(
    'Metadata the server does not accept (`invalid_client_metadata`, `invalid_redirect_uri`, `invalid_software_statement`); nothing is registered or changed and no use of the initial access token is spent.',
  ),
  RegistrationTooLarge: error('The metadata is over 16 KiB (`invalid_client_metadata`).'),
  OAuthServerError: error('A bug (`server_error`); no details.'),
  OAuthUnavailable: error(
    'A store is unavailable or the server is busy (`temporarily_unavailable`); retry.',
    retryAfter,
  ),
};

const BY_STATUS: Record<number, string> = {
  400: 'OAuthBadRequest',
  401: 'OAuthUnauthorized',
  403: 'OAuthForbidden',
  404: 'OAuthNotFound',
  409: 'OAuthConflict',
  413: 'OAuthTooLarge',
  429: 'OAuthTooManyRequests',
  500: 'OAuthServerError',
  503: 'OAuthUnavailable',
};

/** The error responses of an operation; 400, 413, 429, 500 and 503 can happen to any. */
export function oauthErrors(...statuses: number[]): JsonObject {
  const all = [...new Set([400, 413, 429, 500, 503, ...statuses])].sort((a, b) => a - b);
  return Object.fromEntries(all.map((status) => [String(status), responseRef(BY_STATUS[status]!)]));
}
