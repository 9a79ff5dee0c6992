import { z } from 'zod/v4';

/**
 * Every `error` code the authorization server answers with: RFC 6749 §5.2 and §4.1.2.1, RFC 7009 §2.2.1
 * (`unsupported_token_type`), RFC 8628 §3.5, RFC 8707 §2 (`invalid_target`), RFC 6750 §3.1, RFC 9449 §5
 * and §7 (`invalid_dpop_proof`, `use_dpop_nonce`); auth's `OAuthError` takes its codes from here.
 */
export const OAUTH_ERROR_CODES = [
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
  // RFC 9101 §6.3 (request objects) and RFC 9126 §2.3 (pushed authorization requests).
  'invalid_request_object',
  'invalid_request_uri',
  // RFC 7591 §3.2.2 (dynamic client registration).
  'invalid_redirect_uri',
  'invalid_client_metadata',
  'invalid_software_statement',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** The administration API's own codes, in the same body. */
const ADMIN_ERROR_CODES = ['not_found', 'conflict'] as const;

/** The error body of RFC 6749 §5.2 (members beside these, such as `retry_after`, may come with some answers). */
export const oauthErrorBody = z
  .looseObject({
    error: z.enum([...OAUTH_ERROR_CODES, ...ADMIN_ERROR_CODES]),
    error_description: z.string().optional().meta({ description: 'For people; never echoes a secret.' }),
  })
  .meta({
    description: 'The error response of RFC 6749 §5.2, answered with `Cache-Control: no-store`.',
    example: { error: 'invalid_grant', error_description: 'the authorization code is invalid or was used' },
  });
