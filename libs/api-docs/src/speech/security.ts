import { API_KEY_SCOPES, API_KEYS_SCOPE, developerMeaning } from '@platform/oauth-resource';
import type { JsonObject, JsonValue } from './json-helpers';

type Scope = (typeof API_KEY_SCOPES)[number];

const scopes = (): JsonObject => Object.fromEntries(API_KEY_SCOPES.map((s) => [s, developerMeaning(s)]));

/**
 * How a client authenticates to the speech API. The gateway tells the credentials apart and each ends
 * at the same account (docs/speech.md; docs/auth.md for the authorization server).
 */
export const securitySchemes: JsonObject = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'xi-api-key',
    description:
      'An API key of the account (`sk_…`, from `POST /v1/api-keys`). Holds the scopes it was made with (both by default).',
  },
  Bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      '`Authorization: Bearer <credential>` (RFC 6750): an API key, or an OAuth 2.0 access token (a JWT, RFC 9068) the authorization server issued for the audience of this API with `speech:read` / `speech:write`.',
  },
  DPoP: {
    type: 'http',
    scheme: 'DPoP',
    description:
      '`Authorization: DPoP <access token>` with a `DPoP` proof header (RFC 9449, OAuth 2.0 Demonstrating Proof of Possession): the token is bound to the client’s key, and the proof (`htm`, `htu`, `iat`, `jti`, `ath`) must match this request.',
  },
  OAuth2: {
    type: 'oauth2',
    description:
      'Access tokens from the platform’s authorization server (OAuth 2.0, RFC 6749; its endpoints are served by this gateway). ' +
      'Authorization code with PKCE (RFC 7636, `S256`) for users, client credentials for services. ' +
      'The device authorization grant (RFC 8628: `POST /device_authorization`, then polling `/token`) also issues these tokens; OpenAPI has no flow object for it. ' +
      'Send the token as `Bearer`, or as `DPoP` when it is sender-constrained.',
    flows: {
      authorizationCode: {
        authorizationUrl: '/authorize',
        tokenUrl: '/token',
        refreshUrl: '/token',
        scopes: { ...scopes(), [API_KEYS_SCOPE]: developerMeaning(API_KEYS_SCOPE) },
      },
      clientCredentials: { tokenUrl: '/token', scopes: scopes() },
    },
  },
};

/** Any credential of the account: API key (header or Bearer), access token (Bearer, DPoP or an OAuth flow). */
export function anyCredential(scope: Scope): JsonValue[] {
  return [{ ApiKey: [] }, { Bearer: [] }, { DPoP: [] }, { OAuth2: [scope] }];
}

/** An OAuth access token only (the API key routes: a key must not mint keys that outlive it), holding every scope given. */
export function accessTokenOnly(...needed: Array<Scope | typeof API_KEYS_SCOPE>): JsonValue[] {
  return [{ Bearer: [] }, { DPoP: [] }, { OAuth2: needed }];
}
