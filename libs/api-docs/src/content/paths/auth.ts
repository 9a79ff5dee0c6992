import { jsonContent, jsonResponse, schemaRef, type JsonObject } from '../../speech/json-helpers';
import { contentErrors } from '../errors';

const publicOperation = { tags: ['Sign-in'], security: [] };

/** `/api/v1/auth/*`: public; the credentials live at the authorization server, content keeps the profile. */
export const authPaths: JsonObject = {
  '/api/v1/auth/register': {
    post: {
      ...publicOperation,
      operationId: 'register',
      summary: 'Create an account and its profile',
      description: 'An email already used (in any letter case) is a 400 on `email`.',
      requestBody: { required: true, content: jsonContent(schemaRef('Registration')) },
      responses: {
        '201': jsonResponse('The account was created.', schemaRef('Registered')),
        ...contentErrors(413, 415, 502),
      },
    },
  },
  '/api/v1/auth/login': {
    post: {
      ...publicOperation,
      operationId: 'login',
      summary: 'Sign in with email and password',
      description:
        'The authorization server’s sign-in limits apply: after 5 attempts for one email or 50 from one address, attempts are refused with 429 and `Retry-After` for 1 s, doubling up to 15 min, whether or not the password is right.',
      requestBody: { required: true, content: jsonContent(schemaRef('Login')) },
      responses: { '200': jsonResponse('Signed in.', schemaRef('Tokens')), ...contentErrors(401, 413, 415) },
    },
  },
  '/api/v1/auth/refresh': {
    post: {
      ...publicOperation,
      operationId: 'refresh',
      summary: 'Exchange a refresh token for new tokens',
      description:
        'The refresh token is rotated: the old one stops working, and using it again revokes the whole family.',
      requestBody: { required: true, content: jsonContent(schemaRef('Refresh')) },
      responses: { '200': jsonResponse('New tokens.', schemaRef('Tokens')), ...contentErrors(401, 413, 415) },
    },
  },
};
