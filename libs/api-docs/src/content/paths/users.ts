import { UserId } from '@platform/contracts';
import { jsonContent, jsonResponse, parameterRef, schemaRef, type JsonObject } from '../../speech/json-helpers';
import { contentErrors } from '../errors';
import { pathParameter } from '../../contract-schemas';
import { contentToken } from '../security';

const read = { tags: ['Users'], security: contentToken('content:read') };
const write = { tags: ['Users'], security: contentToken('content:write') };
const putBody = { required: true, content: jsonContent(schemaRef('UserPut')) };
const userId = pathParameter('id', UserId);

/** `/api/v1/users`: profiles (apps/content/src/users/user-routes.ts). */
export const userPaths: JsonObject = {
  '/api/v1/users': {
    get: {
      ...read,
      operationId: 'listUsers',
      summary: 'List profiles, newest first',
      parameters: [parameterRef('Page'), parameterRef('Limit')],
      responses: { '200': jsonResponse('One page of profiles.', schemaRef('UserPage')), ...contentErrors(401, 403) },
    },
    put: {
      ...write,
      operationId: 'replaceOwnProfile',
      summary: 'Replace the caller’s own profile',
      requestBody: putBody,
      responses: {
        '200': jsonResponse('The profile as it is now.', schemaRef('User')),
        ...contentErrors(401, 403, 409, 413, 415),
      },
    },
  },
  '/api/v1/users/me': {
    get: {
      ...read,
      operationId: 'getOwnProfile',
      summary: 'The caller’s profile (created from the account on first use)',
      responses: {
        '200': jsonResponse('The caller’s profile, with `email`.', schemaRef('User')),
        ...contentErrors(401, 403),
      },
    },
  },
  '/api/v1/users/{id}': {
    get: {
      ...read,
      operationId: 'getUser',
      summary: 'One profile',
      parameters: [userId],
      responses: { '200': jsonResponse('The profile.', schemaRef('User')), ...contentErrors(401, 403, 404) },
    },
    put: {
      ...write,
      operationId: 'replaceUser',
      summary: 'Replace a profile: one’s own, or any with ROLE_ADMIN',
      parameters: [userId],
      requestBody: putBody,
      responses: {
        '200': jsonResponse('The profile as it is now.', schemaRef('User')),
        ...contentErrors(401, 403, 404, 409, 413, 415),
      },
    },
  },
};
