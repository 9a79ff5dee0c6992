import type { JsonObject } from '../speech/json-helpers';

/**
 * The form bodies of `POST /token`, one per grant the server serves (apps/auth/src/grants/index.ts; the
 * metadata's `grant_types_supported`). There is no resource-owner password grant (OAuth 2.0 Security BCP).
 */
export const GRANT_TYPES = [
  'authorization_code',
  'client_credentials',
  'refresh_token',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
  'urn:ietf:params:oauth:grant-type:token-exchange',
] as const;

const text = (maxLength: number, description?: string): JsonObject => ({ type: 'string', minLength: 1, maxLength, ...(description ? { description } : {}) });
const resource: JsonObject = {
  type: 'array',
  maxItems: 10,
  items: { type: 'string', format: 'uri', maxLength: 2000 },
  description: 'Resource indicators (RFC 8707): the APIs the token is for (the gateway’s origin, `<origin>/v1`, `<origin>/api`); repeat the parameter for more than one.',
};
const scope = text(2000, 'Space-separated scopes; left out: the client’s registered scopes.');

/** Client authentication in the body (RFC 6749 §2.3.1 `client_secret_post`; RFC 7523 §2.2 `private_key_jwt` / `client_secret_jwt`; `client_id` alone for a public client). */
export const clientAuthenticationFields: JsonObject = {
  client_id: text(128),
  client_secret: text(512, 'client_secret_post (RFC 6749 §2.3.1).'),
  client_assertion_type: { type: 'string', const: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' },
  client_assertion: text(8192, 'A JWT signed with the client’s registered key (private_key_jwt) or its secret (client_secret_jwt), RFC 7523 §2.2; at most 10 minutes of life, used once.'),
};

const grant = (type: string, description: string, required: string[], fields: JsonObject): JsonObject => ({
  type: 'object',
  description,
  required: ['grant_type', ...required],
  properties: { grant_type: { type: 'string', const: type }, ...fields, ...clientAuthenticationFields },
});

export const grantFormSchemas: JsonObject = {
  AuthorizationCodeGrant: grant('authorization_code', 'RFC 6749 §4.1.3 with PKCE (RFC 7636): the code from `/authorize`.', ['code'], {
    code: text(512),
    redirect_uri: { type: 'string', format: 'uri', maxLength: 2000, description: 'The one sent to `/authorize` (required when it was sent there).' },
    code_verifier: { type: 'string', minLength: 43, maxLength: 128, pattern: '^[A-Za-z0-9._~-]+$', description: 'PKCE (RFC 7636 §4.5), S256; required for the codes of requests that sent a code_challenge.' },
    resource,
  }),
  ClientCredentialsGrant: grant('client_credentials', 'RFC 6749 §4.4: a confidential client’s own token.', [], { scope, resource }),
  RefreshTokenGrant: grant('refresh_token', 'RFC 6749 §6: the refresh token is rotated; reusing an old one revokes its family.', ['refresh_token'], {
    refresh_token: text(200),
    scope,
    resource,
  }),
  DeviceCodeGrant: grant('urn:ietf:params:oauth:grant-type:device_code', 'RFC 8628 §3.4: polled until the person approves (`authorization_pending`, `slow_down`, `expired_token`, `access_denied`).', ['device_code'], {
    device_code: text(200),
  }),
  JwtBearerGrant: grant('urn:ietf:params:oauth:grant-type:jwt-bearer', 'RFC 7523 §2.1: a JWT assertion signed by a registered issuer.', ['assertion'], {
    assertion: text(8192),
    scope,
    resource,
  }),
  TokenExchangeGrant: grant('urn:ietf:params:oauth:grant-type:token-exchange', 'RFC 8693: a token for another audience (delegation with `actor_token`), for clients the subject token’s client allows.', ['subject_token', 'subject_token_type'], {
    subject_token: text(8192),
    subject_token_type: { type: 'string', const: 'urn:ietf:params:oauth:token-type:access_token' },
    requested_token_type: text(200),
    actor_token: text(8192),
    actor_token_type: text(200),
    resource,
    audience: { ...resource, description: 'Logical names of the target services (RFC 8693 §2.1).' },
    scope,
  }),
};

/** Form encoding of the repeatable parameters: one `resource=` per value (OpenAPI 3.1 §4.8.15). */
export const repeatedFormFields: JsonObject = { resource: { style: 'form', explode: true }, audience: { style: 'form', explode: true } };
