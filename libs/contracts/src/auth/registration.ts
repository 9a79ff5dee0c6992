import { z } from 'zod/v4';
import { GRANT_TYPES } from '@platform/oauth-grants';
import { CLIENT_KEY_ALGS, clientRegistration } from './clients';

/** How a client authenticates at the token, revocation and introspection endpoints (RFC 7591 §2, RFC 8414 §2). */
export const CLIENT_AUTH_METHODS = [
  'client_secret_basic',
  'client_secret_post',
  'client_secret_jwt',
  'private_key_jwt',
  'none',
] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];
/** `client_secret_jwt`'s algorithms (RFC 7523 §2.2 with the client's secret). */
export const HMAC_ALGS = ['HS256', 'HS384', 'HS512'] as const;
/** Every algorithm a client assertion may be signed with: HMAC with the secret, or the client's own keys. */
export const CLIENT_ASSERTION_ALGS = [...HMAC_ALGS, ...CLIENT_KEY_ALGS] as const;

/** Pages about the client: absolute http(s) URLs only (a `javascript:` URL is a URL too). */
const pageUri = z
  .string()
  .url()
  .max(2000)
  .refine((uri) => /^https?:\/\//i.test(uri), 'must be an http or https URL')
  .meta({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description: 'An http or https URL, stored and returned as given.' });

/**
 * Client metadata of RFC 7591 §2 (and OpenID Connect Dynamic Client Registration 1.0 §2), as `POST /register`
 * and the client configuration endpoint's `PUT` (RFC 7592 §2.2) read it. Values that are well formed but not
 * supported (an unknown method, grant type or scope) are refused by auth with RFC 7591 §3.2.2's codes and
 * descriptions, so their lists are documented here (`meta`) rather than checked. Fields the server does not
 * know are ignored (RFC 7591 §2).
 */
export const clientMetadata = z.object({
  redirect_uris: z
    .array(z.string().meta({ format: 'uri', maxLength: 2000 }))
    .max(20)
    .optional()
    .meta({
      description:
        'Required with the authorization_code grant. No fragment, no `javascript:`, `data:`, `vbscript:`, `file:`, `blob:` or `about:` URI (`invalid_redirect_uri`).',
    }),
  token_endpoint_auth_method: z
    .string()
    .optional()
    .meta({
      enum: [...CLIENT_AUTH_METHODS],
      default: 'client_secret_basic',
      description:
        '`none` registers a public client; `private_key_jwt` needs `jwks` or `jwks_uri` and gets no secret. Fixed at registration.',
    }),
  token_endpoint_auth_signing_alg: z
    .string()
    .optional()
    .meta({
      enum: [...CLIENT_ASSERTION_ALGS],
      description: 'HS* with `client_secret_jwt`, the others with `private_key_jwt`.',
    }),
  grant_types: z
    .array(z.string().meta({ enum: [...GRANT_TYPES] }))
    .max(10)
    .optional()
    .meta({ default: ['authorization_code'] }),
  response_types: z
    .array(z.string().meta({ const: 'code' }))
    .max(10)
    .optional()
    .meta({ description: '`[code]` with the authorization_code grant, `[]` without it.' }),
  client_name: z.string().min(1).max(100).optional().meta({ description: 'Left out: the client_id.' }),
  client_uri: pageUri.optional(),
  logo_uri: pageUri.optional(),
  tos_uri: pageUri.optional(),
  policy_uri: pageUri.optional(),
  contacts: z.array(z.string().email().max(320)).max(10).optional(),
  scope: z
    .string()
    .max(2000)
    .optional()
    .meta({ default: 'openid', description: 'Space-separated; any supported scope but `admin`.' }),
  software_id: z.string().min(1).max(200).optional(),
  software_version: z.string().min(1).max(200).optional(),
  application_type: z.enum(['web', 'native']).optional(),
  // OpenID Connect Registration §2: this server signs ID tokens with ES256 and has public subjects only.
  id_token_signed_response_alg: z.literal('ES256').optional(),
  subject_type: z.literal('public').optional(),
  software_statement: z.unknown().optional().meta({ description: 'Not accepted.' }),
});

/**
 * The metadata the client model holds under the RFC 7591 name itself: passed to `clientRegistration` as
 * given (and checked there), and returned from the registration.
 */
export const registeredClientMetadata = clientRegistration
  .pick({
    jwks_uri: true,
    request_object_signing_alg: true,
    require_pushed_authorization_requests: true,
    require_signed_request_object: true,
    backchannel_logout_uri: true,
    backchannel_logout_session_required: true,
  })
  .extend({
    post_logout_redirect_uris: clientRegistration.shape.post_logout_redirect_uris
      .removeDefault()
      .optional()
      .meta({ description: 'OpenID Connect RP-Initiated Logout 1.0; a PUT that leaves it out empties it.' }),
    jwks: clientRegistration.shape.jwks.meta({
      description: 'The client’s public keys (for `private_key_jwt`, signed request objects); not with `jwks_uri`.',
    }),
    introspection_signed_response_alg: clientRegistration.shape.introspection_signed_response_alg.meta({
      description: 'RFC 9701.',
    }),
    security_profile: clientRegistration.shape.security_profile.meta({
      description: 'The FAPI 2.0 Security Profile: `private_key_jwt` with `jwks`/`jwks_uri`; PAR is then required.',
    }),
  });
