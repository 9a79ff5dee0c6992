import type { JsonObject } from '../speech/json-helpers';
import { clientMetadata, registeredClientMetadata } from '@platform/contracts';
import { formProperties } from './grant-forms';

/**
 * Dynamic client registration (RFC 7591, RFC 7592; apps/auth/src/registration/client-metadata.ts), the
 * initial access tokens the administration API mints for it. The metadata becomes the administration API's registration input, so its
 * checks are those of `ClientRegistration` (admin-bodies.ts) under the RFC 7591 names; the metadata's schemas
 * are the auth contract's (libs/contracts/src/auth/registration.ts).
 */
const strings = { type: 'array', items: { type: 'string' } };

/** What the client asks for and what the server stores of it (RFC 7591 §2); both directions use these names. */
const { software_statement: softwareStatement, ...metadataProperties } = {
  ...formProperties(clientMetadata.shape),
  ...formProperties(registeredClientMetadata.shape),
};

/** Accepted at registration (OpenID Connect Registration §2: the only values this server has) but not stored. */
const { id_token_signed_response_alg: idTokenAlg, subject_type: subjectType, ...storedProperties } = metadataProperties;

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
    properties: {
      ...storedProperties,
      id_token_signed_response_alg: idTokenAlg!,
      subject_type: subjectType!,
      software_statement: softwareStatement!,
    },
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
      ...storedProperties,
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
