import type { JsonObject } from '../speech/json-helpers';
import {
  clientMetadata,
  deletedInitialAccessToken,
  initialAccessToken,
  issuedClientCredentials,
  jsonSchemaOf,
  registeredClientMetadata,
} from '@platform/contracts';
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
const issued = jsonSchemaOf(issuedClientCredentials) as JsonObject & { properties: JsonObject; required: string[] };

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
      ...issued.required,
      'client_name',
      'redirect_uris',
      'post_logout_redirect_uris',
      'grant_types',
      'response_types',
      'token_endpoint_auth_method',
      'scope',
    ],
    properties: {
      ...storedProperties,
      ...issued.properties,
      grant_types: strings,
      response_types: strings,
      require_pushed_authorization_requests: { type: 'boolean', const: true },
      require_signed_request_object: { type: 'boolean', const: true },
    },
    additionalProperties: false,
  },
  InitialAccessToken: jsonSchemaOf(initialAccessToken) as JsonObject,
  DeletedInitialAccessToken: jsonSchemaOf(deletedInitialAccessToken) as JsonObject,
};
