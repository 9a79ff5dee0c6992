import type { JsonObject } from '../speech/json-helpers';
import { clientRegistrationSchema } from './admin-bodies';
import { GRANT_TYPES } from '@platform/oauth-grants';

/**
 * Dynamic client registration (RFC 7591, RFC 7592; apps/auth/src/registration/client-metadata.ts), the
 * initial access tokens the administration API mints for it. The metadata becomes the administration API's registration input, so its
 * checks are those of `ClientRegistration` (admin-bodies.ts) under the RFC 7591 names.
 */
const registration = clientRegistrationSchema.properties;
const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'];
const SIGNING_ALGS = ['HS256', 'HS384', 'HS512', 'ES256', 'ES384', 'EdDSA', 'PS256', 'RS256'];
const strings = { type: 'array', items: { type: 'string' } };
const pageUri = {
  type: 'string',
  format: 'uri',
  maxLength: 2000,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
  description: 'An http or https URL, stored and returned as given.',
};
const uris = (description: string): JsonObject => ({
  type: 'array',
  items: { type: 'string', format: 'uri', maxLength: 2000 },
  maxItems: 20,
  description,
});

/** What the client asks for and what the server stores of it (RFC 7591 §2); both directions use these names. */
const metadataProperties: JsonObject = {
  redirect_uris: uris(
    'Required with the authorization_code grant. No fragment, no `javascript:`, `data:`, `vbscript:`, `file:`, `blob:` or `about:` URI (`invalid_redirect_uri`).',
  ),
  post_logout_redirect_uris: uris('OpenID Connect RP-Initiated Logout 1.0; a PUT that leaves it out empties it.'),
  token_endpoint_auth_method: {
    type: 'string',
    enum: AUTH_METHODS,
    default: 'client_secret_basic',
    description:
      '`none` registers a public client; `private_key_jwt` needs `jwks` or `jwks_uri` and gets no secret. Fixed at registration.',
  },
  token_endpoint_auth_signing_alg: {
    type: 'string',
    enum: SIGNING_ALGS,
    description: 'HS* with `client_secret_jwt`, the others with `private_key_jwt`.',
  },
  grant_types: {
    type: 'array',
    items: { type: 'string', enum: [...GRANT_TYPES] },
    maxItems: 10,
    default: ['authorization_code'],
  },
  response_types: {
    type: 'array',
    items: { type: 'string', const: 'code' },
    maxItems: 10,
    description: '`[code]` with the authorization_code grant, `[]` without it.',
  },
  client_name: { type: 'string', minLength: 1, maxLength: 100, description: 'Left out: the client_id.' },
  client_uri: pageUri,
  logo_uri: pageUri,
  tos_uri: pageUri,
  policy_uri: pageUri,
  contacts: { type: 'array', items: { type: 'string', format: 'email', maxLength: 320 }, maxItems: 10 },
  scope: {
    type: 'string',
    maxLength: 2000,
    default: 'openid',
    description: 'Space-separated; any supported scope but `admin`.',
  },
  software_id: { type: 'string', minLength: 1, maxLength: 200 },
  software_version: { type: 'string', minLength: 1, maxLength: 200 },
  application_type: { type: 'string', enum: ['web', 'native'] },
  jwks: {
    ...(registration.jwks as JsonObject),
    description: 'The client’s public keys (for `private_key_jwt`, signed request objects); not with `jwks_uri`.',
  },
  jwks_uri: registration.jwks_uri!,
  request_object_signing_alg: registration.request_object_signing_alg!,
  require_pushed_authorization_requests: registration.require_pushed_authorization_requests!,
  require_signed_request_object: registration.require_signed_request_object!,
  introspection_signed_response_alg: { type: 'string', enum: ['ES256'], description: 'RFC 9701.' },
  security_profile: {
    type: 'string',
    enum: ['fapi2'],
    description: 'The FAPI 2.0 Security Profile: `private_key_jwt` with `jwks`/`jwks_uri`; PAR is then required.',
  },
  backchannel_logout_uri: registration.backchannel_logout_uri!,
  backchannel_logout_session_required: registration.backchannel_logout_session_required!,
};

/** What the server issues beside the metadata (RFC 7591 §3.2.1, RFC 7592 §3). */
const issuedProperties: JsonObject = {
  client_id: { type: 'string' },
  client_id_issued_at: { type: 'integer', minimum: 0 },
  client_secret: {
    type: 'string',
    description: 'At registration only, for a client that has a secret; never repeated.',
  },
  client_secret_expires_at: {
    type: 'integer',
    const: 0,
    description: 'Present when the client has a secret: it does not expire.',
  },
  registration_access_token: {
    type: 'string',
    description: 'For the client configuration endpoint; replaced in every answer (the one used stops working).',
  },
  registration_client_uri: { type: 'string', format: 'uri' },
};

export const registrationSchemas: JsonObject = {
  ClientMetadata: {
    type: 'object',
    description:
      'RFC 7591 §2 client metadata. Fields the server does not know are ignored; a known field with a value it does not support is refused. `software_statement` is refused (`invalid_software_statement`).',
    properties: { ...metadataProperties, software_statement: { description: 'Not accepted.' } },
  },
  ClientMetadataUpdate: {
    description:
      'RFC 7592 §2.2: the whole registration, replaced. `client_id` must be the client’s; a `client_secret`, if sent, must be its secret; `token_endpoint_auth_method` cannot change. The fields the server issues are ignored.',
    allOf: [
      { $ref: '#/components/schemas/ClientMetadata' },
      {
        type: 'object',
        required: ['client_id'],
        properties: { client_id: { type: 'string' }, client_secret: { type: 'string' } },
      },
    ],
  },
  ClientInformation: {
    type: 'object',
    description:
      'RFC 7591 §3.2.1 / RFC 7592 §3: the registered metadata and the credentials, with `Cache-Control: no-store`.',
    required: [
      'client_id',
      'client_id_issued_at',
      'client_name',
      'redirect_uris',
      'post_logout_redirect_uris',
      'grant_types',
      'response_types',
      'token_endpoint_auth_method',
      'scope',
      'registration_access_token',
      'registration_client_uri',
    ],
    properties: {
      ...metadataProperties,
      ...issuedProperties,
      grant_types: strings,
      response_types: strings,
      require_pushed_authorization_requests: { type: 'boolean', const: true },
      require_signed_request_object: { type: 'boolean', const: true },
    },
    additionalProperties: false,
  },
  InitialAccessToken: {
    type: 'object',
    required: ['id', 'initial_access_token', 'expires_at', 'max_uses'],
    properties: {
      id: { type: 'string', description: 'For `DELETE /admin/registration-tokens/{id}`; not the token.' },
      initial_access_token: { type: 'string', description: 'Shown this once; only its hash is stored.' },
      expires_at: { type: 'string', format: 'date-time' },
      max_uses: { type: ['integer', 'null'], minimum: 1 },
    },
    additionalProperties: false,
  },
  DeletedInitialAccessToken: {
    type: 'object',
    required: ['id', 'deleted'],
    properties: { id: { type: 'string' }, deleted: { type: 'boolean', const: true } },
    additionalProperties: false,
  },
};
