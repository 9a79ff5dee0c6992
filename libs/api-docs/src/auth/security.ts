import type { JsonObject, JsonValue } from '../speech/json-helpers';

/**
 * How clients and administrators authenticate to the authorization server. Client authentication at
 * `/token`, `/revoke`, `/introspect` and `/device_authorization` (RFC 6749 §2.3, RFC 7523 §2.2): HTTP Basic
 * (`client_secret_basic`) here; `client_secret_post`, `client_secret_jwt`, `private_key_jwt` and a public
 * client's `client_id` are form fields of the body (OpenAPI has no scheme for them). Exactly one method per request.
 */
export const authSecuritySchemes: JsonObject = {
  ClientSecretBasic: {
    type: 'http',
    scheme: 'basic',
    description:
      '`client_secret_basic` (RFC 6749 §2.3.1): the client_id and client_secret, each form-urlencoded, as HTTP Basic credentials.',
  },
  Bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An access token of this server (RFC 6750) whose audience includes the issuer.',
  },
  DPoP: {
    type: 'http',
    scheme: 'DPoP',
    description: 'A DPoP-bound access token (`cnf.jkt`) with a `DPoP` proof header for this request (RFC 9449 §7).',
  },
  InitialAccessToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An initial access token (RFC 7591 §3) minted by `POST /admin/registration-tokens` or the CLI: `POST /register` needs one unless REGISTRATION_OPEN.',
  },
  RegistrationAccessToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The registration access token (RFC 7592 §3) of the last answer about the client; each answer replaces it.',
  },
  OAuth2: {
    type: 'oauth2',
    description:
      'This server’s own flows (RFC 6749), as its metadata (`/.well-known/oauth-authorization-server`) lists them.',
    flows: {
      authorizationCode: {
        authorizationUrl: '/authorize',
        tokenUrl: '/token',
        refreshUrl: '/token',
        scopes: {
          openid: 'OpenID Connect: an ID token and `/userinfo`.',
          profile: '`name` in the ID token and at `/userinfo`.',
          email: '`email` in the ID token and at `/userinfo`.',
          offline_access: 'A refresh token.',
          admin: 'The administration API (ADMIN accounts and clients registered with it).',
        },
      },
      clientCredentials: {
        tokenUrl: '/token',
        scopes: { admin: 'The administration API, for a client registered with the admin scope.' },
      },
    },
  },
};

/** A token carrying `scope`, sent as Bearer or DPoP. */
export function accessToken(scope: string): JsonValue[] {
  return [{ Bearer: [] }, { DPoP: [] }, { OAuth2: [scope] }];
}

/** Client authentication: HTTP Basic, or the body's fields (empty requirement). */
export const clientAuthentication: JsonValue[] = [{ ClientSecretBasic: [] }, {}];
