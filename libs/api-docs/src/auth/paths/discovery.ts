import { schemaRef, jsonResponse, type JsonObject } from '../../speech/json-helpers';
import { oauthErrors } from '../errors';
import { accessToken } from '../security';

const cached: JsonObject = { 'Cache-Control': { schema: { type: 'string' }, description: '`public, max-age=300`' } };
const metadataAnswer = (description: string, schema: string): JsonObject => ({
  ...jsonResponse(description, schemaRef(schema)),
  headers: cached,
});

const userinfo = (method: string): JsonObject => ({
  tags: ['OpenID Connect'],
  operationId: `userinfo${method}`,
  summary: 'Claims about the signed-in person (OpenID Connect Core 1.0 §5.3)',
  description:
    'For an access token granted `openid` whose audience includes the issuer; refusals carry an RFC 6750 §3 / RFC 9449 §7 challenge in `WWW-Authenticate`.',
  security: accessToken('openid'),
  responses: {
    '200': jsonResponse('The claims the token’s scopes allow.', schemaRef('UserInfo')),
    ...oauthErrors(401, 403),
  },
});

/** Metadata, keys and userinfo (apps/auth/src/oauth/metadata-route.ts, oidc/, keys/). */
export const discoveryPaths: JsonObject = {
  '/.well-known/oauth-authorization-server': {
    get: {
      tags: ['Discovery'],
      operationId: 'serverMetadata',
      summary: 'Authorization server metadata (RFC 8414)',
      security: [],
      responses: {
        '200': metadataAnswer('What this server implements, and where.', 'ServerMetadata'),
        ...oauthErrors(),
      },
    },
  },
  '/.well-known/openid-configuration': {
    get: {
      tags: ['Discovery'],
      operationId: 'openidConfiguration',
      summary: 'OpenID Provider metadata (OpenID Connect Discovery 1.0)',
      security: [],
      responses: {
        '200': metadataAnswer('The RFC 8414 metadata plus the OpenID Provider’s.', 'OpenIDConfiguration'),
        ...oauthErrors(),
      },
    },
  },
  '/jwks': {
    get: {
      tags: ['Discovery'],
      operationId: 'jwks',
      summary: 'The public keys that sign tokens (RFC 7517)',
      security: [],
      responses: {
        '200': {
          description: 'The key set.',
          headers: cached,
          content: { 'application/jwk-set+json': { schema: schemaRef('JWKSet') } },
        },
        ...oauthErrors(),
      },
    },
  },
  '/userinfo': { get: userinfo('Get'), post: userinfo('Post') },
};
