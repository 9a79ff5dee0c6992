import { adminAccountEmailFilter, adminPageQuery } from '@platform/contracts';
import { queryParameter, queryParameters } from '../../contract-schemas';
import { jsonContent, jsonResponse, schemaRef, type JsonObject } from '../../speech/json-helpers';
import { oauthErrors } from '../errors';
import { accessToken } from '../security';

const id = (name: string, description: string): JsonObject => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
});
const paging: JsonObject[] = queryParameters(adminPageQuery);
const clientId = id('id', 'The client_id.');
const accountId = id('id', 'The account id.');
const json = (schema: string): JsonObject => ({ required: true, content: jsonContent(schemaRef(schema)) });
const ok = (description: string, schema: string): JsonObject => ({
  '200': jsonResponse(description, schemaRef(schema)),
});

/** Every operation: an access token with the `admin` scope, answers no-store, errors in the OAuth shape. */
const admin = (operationId: string, summary: string, rest: JsonObject, errors: number[] = []): JsonObject => ({
  tags: ['Administration'],
  operationId,
  summary,
  security: accessToken('admin'),
  ...rest,
  responses: { ...(rest.responses as JsonObject), ...oauthErrors(401, 403, 404, ...errors) },
});

/**
 * The administration API (apps/auth/src/admin/admin-routes.ts; docs/auth.md "Administration"): an
 * access token with the `admin` scope held by an ADMIN account or by a client registered with it; every
 * change is appended to the audit log before the answer.
 */
export const adminPaths: JsonObject = {
  '/admin/clients': {
    get: admin('listClients', 'Client registrations, in client_id order', {
      parameters: paging,
      responses: ok('One page.', 'ClientPage'),
    }),
    post: admin(
      'registerClient',
      'Register a client',
      {
        requestBody: json('ClientRegistration'),
        responses: {
          '201': jsonResponse(
            'Registered; a confidential client’s secret is shown this once.',
            schemaRef('RegisteredClient'),
          ),
        },
      },
      [409],
    ),
  },
  '/admin/clients/{id}': {
    get: admin('getClient', 'One registration', {
      parameters: [clientId],
      responses: ok('The registration.', 'Client'),
    }),
    // 409 for the platform's own page clients (the playground's, the queue dashboard's), written again at every boot.
    patch: admin(
      'updateClient',
      'Change a registration',
      { parameters: [clientId], requestBody: json('ClientPatch'), responses: ok('The registration now.', 'Client') },
      [409],
    ),
    delete: admin(
      'deleteClient',
      'Delete a registration and revoke every token issued to it',
      {
        parameters: [clientId],
        responses: ok('Deleted.', 'DeletedClient'),
      },
      [409],
    ),
  },
  '/admin/clients/{id}/secret': {
    post: admin(
      'rotateClientSecret',
      'A new secret for a confidential client; the old one stops working at once',
      {
        parameters: [clientId],
        responses: ok('The new secret, shown this once.', 'ClientSecret'),
      },
      [409],
    ),
  },
  '/admin/registration-tokens': {
    post: admin(
      'createRegistrationToken',
      'An initial access token for dynamic client registration (RFC 7591 §3), shown once',
      {
        requestBody: { required: false, content: jsonContent(schemaRef('InitialAccessTokenRequest')) },
        responses: { '201': jsonResponse('The token, shown this once.', schemaRef('InitialAccessToken')) },
      },
    ),
  },
  '/admin/registration-tokens/{id}': {
    delete: admin(
      'deleteRegistrationToken',
      'The initial access token registers nothing more (the clients it registered stay)',
      {
        parameters: [id('id', 'The token’s id (not the token).')],
        responses: ok('Deleted.', 'DeletedInitialAccessToken'),
      },
    ),
  },
  '/admin/accounts': {
    get: admin('listAccounts', 'Accounts, in email order', {
      parameters: [...paging, queryParameter('email', adminAccountEmailFilter)],
      responses: ok('One page.', 'AccountPage'),
    }),
  },
  '/admin/accounts/{id}': {
    get: admin('getAccount', 'One account', { parameters: [accountId], responses: ok('The account.', 'Account') }),
    patch: admin(
      'updateAccount',
      'Change roles, status or plan; a change of roles or status revokes the account’s tokens',
      {
        parameters: [accountId],
        requestBody: json('AccountPatch'),
        responses: ok('The account now.', 'Account'),
      },
    ),
  },
  '/admin/accounts/{id}/unlock': {
    post: admin('unlockAccount', 'End the account’s sign-in lock', {
      parameters: [accountId],
      responses: ok('The failure counters cleared.', 'Unlocked'),
    }),
  },
  '/admin/keys': {
    get: admin('listKeys', 'The signing keys, newest first (no private material)', {
      responses: ok('The keys.', 'SigningKeys'),
    }),
  },
  '/admin/keys/rotate': {
    post: admin('rotateKey', 'A new signing key: in /jwks at once, signing after KEY_ACTIVATION_DELAY', {
      responses: ok('The new key.', 'RotatedKey'),
    }),
  },
  '/admin/keys/{kid}/retire': {
    post: admin(
      'retireKey',
      'Take the previous key out of /jwks at once (tokens it signed stop verifying)',
      {
        parameters: [id('kid', 'The previous key’s kid.')],
        responses: ok('Retired.', 'RetiredKey'),
      },
      [409],
    ),
  },
  '/admin/audit': {
    get: admin('listAudit', 'The audit log, newest first', {
      parameters: paging,
      responses: ok('One page.', 'AuditPage'),
    }),
  },
};
