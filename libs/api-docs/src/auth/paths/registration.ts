import { jsonContent, jsonResponse, responseRef, schemaRef, type JsonObject } from '../../speech/json-helpers';
import { noStore } from './oauth';

const tags = ['Registration'];
const information = (description: string): JsonObject => ({
  ...jsonResponse(description, schemaRef('ClientInformation')),
  headers: noStore,
});
const metadata = (schema: string): JsonObject => ({ required: true, content: jsonContent(schemaRef(schema)) });
const clientId: JsonObject = {
  name: 'client_id',
  in: 'path',
  required: true,
  description: 'The registered client’s client_id.',
  schema: { type: 'string', maxLength: 200 },
};

/**
 * The registration endpoints' errors: RFC 7591 §3.2.2 refusals of the metadata, the RFC 6750 §3.1
 * `invalid_token` (401, with a `Bearer` challenge) for a missing, unknown, used-up or already rotated
 * token, and the per-address limit (429, Retry-After).
 */
const errors = (withBody: boolean): JsonObject => ({
  ...(withBody ? { '400': responseRef('RegistrationRefused') } : {}),
  '401': responseRef('OAuthUnauthorized'),
  ...(withBody ? { '413': responseRef('RegistrationTooLarge') } : {}),
  '429': responseRef('OAuthTooManyRequests'),
  '500': responseRef('OAuthServerError'),
  '503': responseRef('OAuthUnavailable'),
});

/** Dynamic client registration and management (apps/auth/src/registration; docs/auth.md "Dynamic client registration"). */
export const registrationPaths: JsonObject = {
  '/register': {
    post: {
      tags,
      operationId: 'registerDynamicClient',
      summary: 'Register a client (RFC 7591 §3)',
      description:
        'With an initial access token from `POST /admin/registration-tokens` (or the CLI) unless REGISTRATION_OPEN; a use of it is spent only when the registration succeeds. The metadata goes through the administration API’s checks. The answer carries the client’s secret (once) and its registration access token.',
      security: [{ InitialAccessToken: [] }, {}],
      requestBody: metadata('ClientMetadata'),
      responses: { '201': information('Registered.'), ...errors(true) },
    },
  },
  '/register/{client_id}': {
    get: {
      tags,
      operationId: 'readDynamicClient',
      summary: 'Read the registration (RFC 7592 §2.1)',
      description:
        'The answer carries a new registration access token; the one used stops working. The secret is not repeated.',
      security: [{ RegistrationAccessToken: [] }],
      parameters: [clientId],
      responses: { '200': information('The registration and a new registration access token.'), ...errors(false) },
    },
    put: {
      tags,
      operationId: 'updateDynamicClient',
      summary: 'Replace the registration (RFC 7592 §2.2)',
      security: [{ RegistrationAccessToken: [] }],
      parameters: [clientId],
      requestBody: metadata('ClientMetadataUpdate'),
      responses: { '200': information('The registration now and a new registration access token.'), ...errors(true) },
    },
    delete: {
      tags,
      operationId: 'deleteDynamicClient',
      summary: 'Delete the client (RFC 7592 §2.3)',
      description:
        'As an administrator’s deletion: every token issued to it and every API key minted through it revoked; the registration access token stops working.',
      security: [{ RegistrationAccessToken: [] }],
      parameters: [clientId],
      responses: { '204': { description: 'Deleted; no body.', headers: noStore }, ...errors(false) },
    },
  },
};
