import { jsonResponse, responseRef, schemaRef, type JsonObject } from '../speech/json-helpers';

/**
 * Every `error` code the authorization server answers with: RFC 6749 §5.2 and §4.1.2.1, RFC 7009 §2.2.1
 * (`unsupported_token_type`), RFC 8628 §3.5, RFC 8707 §2 (`invalid_target`), RFC 6750 §3.1, RFC 9449 §5
 * and §7 (`invalid_dpop_proof`, `use_dpop_nonce`), and the administration API's `not_found` and `conflict`.
 * apps/auth/test/openapi-document.test.ts keeps the list equal to apps/auth/src/oauth/oauth-error.ts.
 */
const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'access_denied',
  'unsupported_response_type',
  'server_error',
  'temporarily_unavailable',
  'unsupported_token_type',
  'authorization_pending',
  'slow_down',
  'expired_token',
  'invalid_token',
  'insufficient_scope',
  'invalid_dpop_proof',
  'use_dpop_nonce',
  // RFC 9101 §6.3 and RFC 9126 §2.3 (signed request objects, pushed authorization requests).
  'invalid_request_object',
  'invalid_request_uri',
  // RFC 7591 §3.2.2 (dynamic client registration).
  'invalid_redirect_uri',
  'invalid_client_metadata',
  'invalid_software_statement',
] as const;

const ADMIN_ERROR_CODES = ['not_found', 'conflict'] as const;

export const oauthErrorSchemas: JsonObject = {
  OAuthError: {
    type: 'object',
    description: 'The error response of RFC 6749 §5.2, answered with `Cache-Control: no-store`.',
    required: ['error'],
    properties: {
      error: { type: 'string', enum: [...OAUTH_ERROR_CODES, ...ADMIN_ERROR_CODES] },
      error_description: { type: 'string', description: 'For people; never echoes a secret.' },
    },
    example: { error: 'invalid_grant', error_description: 'the authorization code is invalid or was used' },
  },
};

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
