import { developerMeaning } from '@platform/oauth-resource';
import type { JsonObject, JsonValue } from '../speech/json-helpers';

/** The scopes of the content API (apps/auth/src/oauth/scopes.ts issues them; the gateway checks them). */
type ContentScope = 'content:read' | 'content:write';

const SCOPES: Record<ContentScope, string> = {
  'content:read': developerMeaning('content:read'),
  'content:write': developerMeaning('content:write'),
};

/**
 * How a client proves who it is to the content API: an access token of the platform's authorization
 * server for the content audience (the gateway's origin or `<origin>/api`), plain or sender-constrained.
 * The token of `POST /api/v1/auth/login` is such a token.
 */
export const contentSecuritySchemes: JsonObject = {
  Bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      '`Authorization: Bearer <access token>` (RFC 6750); the token is a JWT (RFC 9068) with `content:read` and/or `content:write`.',
  },
  DPoP: {
    type: 'http',
    scheme: 'DPoP',
    description:
      '`Authorization: DPoP <access token>` plus a `DPoP` proof header (RFC 9449) whose `htm` and `htu` name this request and whose `ath` hashes the token; for tokens bound to a client key (`cnf.jkt`).',
  },
  OAuth2: {
    type: 'oauth2',
    description:
      'Access tokens from the authorization server behind this gateway (OAuth 2.0, RFC 6749; its document is `/openapi/auth.json`): authorization code with PKCE (RFC 7636) for people, client credentials for services; the device authorization grant (RFC 8628) issues them too.',
    flows: {
      authorizationCode: { authorizationUrl: '/authorize', tokenUrl: '/token', refreshUrl: '/token', scopes: SCOPES },
      clientCredentials: { tokenUrl: '/token', scopes: SCOPES },
    },
  },
};

/** An access token carrying the scope, sent as Bearer or DPoP. */
export function contentToken(scope: ContentScope): JsonValue[] {
  return [{ Bearer: [] }, { DPoP: [] }, { OAuth2: [scope] }];
}
