import { jsonResponse, schemaRef, type JsonObject } from '../../speech/json-helpers';
import { oauthErrors } from '../errors';
import { grantFormChoice, repeatedFormFields } from '../grant-forms';
import { clientAuthentication } from '../security';

const form = (schema: JsonObject, encoding?: JsonObject): JsonObject => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema, ...(encoding ? { encoding } : {}) } },
});
const dpopProof: JsonObject = {
  name: 'DPoP',
  in: 'header',
  required: false,
  description:
    'A DPoP proof JWT (RFC 9449 §4) for this request: the issued token is then bound to its key (`token_type: DPoP`, `cnf.jkt`).',
  schema: { type: 'string' },
};
/** The header of every answer that carries a credential (RFC 6749 §5.1). */
export const noStore: JsonObject = { 'Cache-Control': { schema: { type: 'string', const: 'no-store' } } };
const tags = ['OAuth 2.0'];
/** RFC 7662 JSON, or with `Accept: application/token-introspection+jwt` the RFC 9701 signed answer. */
const introspectionAnswer: JsonObject = {
  description:
    'The token’s state: JSON (RFC 7662), or a JWT signed with the server’s key (RFC 9701) when the client sends `Accept: application/token-introspection+jwt`.',
  headers: noStore,
  content: {
    ...(jsonResponse('', schemaRef('Introspection')).content as JsonObject),
    'application/token-introspection+jwt': {
      schema: {
        type: 'string',
        description:
          'A JWS: `typ` `token-introspection+jwt`, claims `iss`, `aud` (the client), `iat`, `token_introspection` (the RFC 7662 answer).',
      },
    },
  },
};

/** The token endpoint and the endpoints about tokens (apps/auth/src/oauth). */
export const oauthPaths: JsonObject = {
  '/token': {
    post: {
      tags,
      operationId: 'token',
      summary: 'Issue tokens (RFC 6749 §3.2)',
      description:
        'One form per grant type. Authenticate the client with HTTP Basic or in the body (exactly one method); a public client sends `client_id`. A JWT-bearer assertion (RFC 7523) may come without client authentication.',
      security: clientAuthentication,
      parameters: [dpopProof],
      requestBody: form(grantFormChoice, repeatedFormFields),
      responses: {
        '200': {
          ...jsonResponse('The tokens.', schemaRef('TokenResponse')),
          headers: {
            ...noStore,
            'DPoP-Nonce': {
              description: 'When DPOP_REQUIRE_NONCE is set: the nonce for the next proof.',
              schema: { type: 'string' },
            },
          },
        },
        ...oauthErrors(401, 403),
      },
    },
  },
  '/par': {
    post: {
      tags,
      operationId: 'pushAuthorizationRequest',
      summary: 'Push an authorization request (RFC 9126)',
      description:
        'The client authenticates as at `/token`; the request is checked as `/authorize` checks it and stored for PAR_TTL seconds behind a one-time `request_uri`. A `DPoP` proof binds the code to its key (RFC 9449 §10.1). Refusals: `invalid_request`, `invalid_request_object` (a `request` that does not verify against the client’s keys), `invalid_scope`, `invalid_dpop_proof`, `unauthorized_client`; `invalid_client` (401).',
      security: clientAuthentication,
      parameters: [dpopProof],
      requestBody: form(schemaRef('PushedAuthorizationForm'), repeatedFormFields),
      responses: {
        '201': {
          ...jsonResponse('The request_uri for /authorize.', schemaRef('PushedAuthorizationResponse')),
          headers: noStore,
        },
        ...oauthErrors(401),
      },
    },
  },
  '/revoke': {
    post: {
      tags,
      operationId: 'revoke',
      summary: 'Revoke an access or refresh token (RFC 7009)',
      description:
        'An unknown, expired or already revoked token: 200. A token of another client: 400 and nothing revoked. A refresh token takes its whole family and the access tokens issued with it. API keys are revoked through the speech API’s key management (`unsupported_token_type`).',
      security: clientAuthentication,
      requestBody: form(schemaRef('TokenForm')),
      responses: { '200': { description: 'Revoked, or nothing to revoke; no body.' }, ...oauthErrors(401) },
    },
  },
  '/introspect': {
    post: {
      tags,
      operationId: 'introspect',
      summary: 'Is a token active, and what does it say (RFC 7662)',
      description: 'For confidential clients; a public client is `invalid_client`.',
      security: clientAuthentication,
      requestBody: form(schemaRef('TokenForm')),
      responses: { '200': introspectionAnswer, ...oauthErrors(401) },
    },
  },
  '/device_authorization': {
    post: {
      tags,
      operationId: 'deviceAuthorization',
      summary: 'Start the device authorization grant (RFC 8628 §3.1)',
      description:
        'The person then opens `verification_uri` on another device; the client polls `/token` with the device code.',
      security: clientAuthentication,
      requestBody: form(schemaRef('DeviceAuthorizationForm'), repeatedFormFields),
      responses: {
        '200': { ...jsonResponse('The codes.', schemaRef('DeviceAuthorization')), headers: noStore },
        ...oauthErrors(401),
      },
    },
  },
};
