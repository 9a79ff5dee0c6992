import { apiKeyIdParam, apiKeyPageQuery } from '@platform/contracts';
import { pathParameter, queryParameters } from '../../contract-schemas';
import { speechErrors } from '../errors';
import { jsonContent, jsonResponse, schemaRef, type JsonObject } from '../json-helpers';
import { accessTokenOnly, anyCredential } from '../security';

/** Key management answers are not to be cached: the creation answer holds the secret. */
const noStore: JsonObject = { 'Cache-Control': { schema: { const: 'no-store' } } };

export const accountPaths = (): JsonObject => ({
  '/v1/user': {
    get: {
      operationId: 'getUser',
      tags: ['User'],
      summary: 'The account and its subscription',
      security: anyCredential('speech:read'),
      responses: { 200: jsonResponse('The user.', schemaRef('User')), ...speechErrors() },
    },
  },
  '/v1/user/subscription': {
    get: {
      operationId: 'getSubscription',
      tags: ['User'],
      summary: 'The account’s plan, counters and next reset',
      security: anyCredential('speech:read'),
      responses: { 200: jsonResponse('The subscription.', schemaRef('Subscription')), ...speechErrors() },
    },
  },
  '/v1/api-keys': {
    get: {
      operationId: 'listApiKeys',
      tags: ['API keys'],
      summary: 'The account’s live API keys, oldest first (never the secret)',
      description: 'With an OAuth access token of the account; an API key is refused (403 `unauthorized`).',
      security: accessTokenOnly('speech:read'),
      parameters: queryParameters(apiKeyPageQuery),
      responses: {
        200: { ...jsonResponse('A page of keys.', schemaRef('ApiKeyPage')), headers: noStore },
        ...speechErrors(),
      },
    },
    post: {
      operationId: 'createApiKey',
      tags: ['API keys'],
      summary: 'Make an API key',
      description:
        'Needs `speech:write` and `speech:keys` (403 `unauthorized` without). The key holds the requested `scopes`, by default every speech scope the token holds; more than the token holds: 403. It records the token’s client and grant and is revoked with them (revoking the token or its refresh token, deleting the client, a change of the account’s roles, status or password). At most 20 live keys per account (one more: 400). The secret `key` is in this answer only.',
      security: accessTokenOnly('speech:write', 'speech:keys'),
      requestBody: {
        required: true,
        description: 'JSON, at most 16 KiB.',
        content: jsonContent(schemaRef('ApiKeyRequest'), { name: 'laptop', scopes: ['speech:read'] }),
      },
      responses: {
        201: {
          ...jsonResponse('The key, with its secret.', schemaRef('NewApiKey'), {
            key_id: 'key_3f2a9c0b1d4e5f60',
            name: 'laptop',
            scopes: ['speech:read'],
            hint: 'sk_9a1b2c3',
            created_at: '2026-01-01T00:00:00.000Z',
            key: `sk_9a1b2c3${'0'.repeat(57)}`,
          }),
          headers: noStore,
        },
        ...speechErrors({ 413: ['text_too_long'] }),
      },
    },
  },
  '/v1/api-keys/{key_id}': {
    delete: {
      operationId: 'revokeApiKey',
      tags: ['API keys'],
      summary: 'Revoke an API key',
      description:
        'Needs `speech:write` and `speech:keys`. Refused from its next use on, at every gateway replica. Another account’s, unknown or revoked key: 404 alike.',
      security: accessTokenOnly('speech:write', 'speech:keys'),
      parameters: [pathParameter('key_id', apiKeyIdParam)],
      responses: { 204: { description: 'Revoked.' }, ...speechErrors({ 404: ['error'] }) },
    },
  },
});
