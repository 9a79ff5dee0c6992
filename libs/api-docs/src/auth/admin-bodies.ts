import type { JsonObject } from '../speech/json-helpers';
import { PLAN_NAMES } from '@platform/speech-store';
import { ROLES } from '@platform/identity';
import { GRANT_TYPES } from '@platform/oauth-grants';

/**
 * The administration API's request bodies, as zod-to-json-schema writes the zod schemas that check them
 * (apps/auth/src/clients/clients.ts `newClientInput`, admin/admin-clients.ts `clientPatchInput`,
 * admin/admin-accounts.ts `adminAccountPatch`). apps/auth/test/openapi-document.test.ts converts those
 * schemas again and compares, so the document cannot drift from the checks.
 */
const CLIENT_ID = '^[A-Za-z0-9._-]{3,64}$';
const SCOPE = '^[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,64}$';
const urls = { type: 'array', items: { type: 'string', format: 'uri', maxLength: 2000 }, maxItems: 20 };
const name = { type: 'string', minLength: 1, maxLength: 100 };
const grantTypes = { type: 'array', items: { type: 'string', enum: [...GRANT_TYPES] }, minItems: 1 };
const scopes = { type: 'array', items: { type: 'string', pattern: SCOPE }, maxItems: 50 };
/** A public JSON Web Key; the code also requires `kty` and refuses the private members (`d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`, `k`). */
const jwkValue = { type: 'string', maxLength: 8192 };
const publicJwk = {
  type: 'object',
  additionalProperties: { anyOf: [jwkValue, { type: 'array', items: jwkValue, maxItems: 20 }] },
  propertyNames: { pattern: '^[\\x21-\\x7E]{1,64}$' },
};
/** RFC 9101 / RFC 9126 policy of a registration (apps/auth/src/admin/admin-clients.ts `requestPolicyInput`). */
/** A client's public key set (RFC 7517 §5). */
export const jwks = {
  type: 'object',
  properties: { keys: { type: 'array', items: publicJwk, minItems: 1, maxItems: 20 } },
  required: ['keys'],
  additionalProperties: false,
};
export const requestPolicy = {
  jwks_uri: { type: 'string', format: 'uri', maxLength: 2000 },
  request_object_signing_alg: { type: 'string', enum: ['ES256', 'ES384', 'EdDSA', 'PS256', 'RS256'] },
  require_pushed_authorization_requests: { type: 'boolean' },
  require_signed_request_object: { type: 'boolean' },
};
/** OpenID Connect Back-Channel Logout 1.0 §2.2 (apps/auth/src/backchannel-logout/client-metadata.ts). */
export const backchannelLogout = {
  backchannel_logout_uri: { type: 'string', format: 'uri', maxLength: 2000 },
  backchannel_logout_session_required: { type: 'boolean', default: false },
};
const tokenExchange = {
  type: 'object',
  properties: { allowed_clients: { type: 'array', items: { type: 'string', pattern: CLIENT_ID }, maxItems: 50 } },
  required: ['allowed_clients'],
  additionalProperties: false,
};

export const adminBodySchemas: JsonObject = {
  ClientRegistration: {
    type: 'object',
    properties: {
      client_id: { type: 'string', pattern: CLIENT_ID },
      name,
      type: { type: 'string', enum: ['confidential', 'public'] },
      grant_types: grantTypes,
      redirect_uris: { ...urls, default: [] },
      post_logout_redirect_uris: { ...urls, default: [] },
      scopes: { ...scopes, default: [] },
      resources: { ...urls, default: [] },
      jwks,
      token_exchange: tokenExchange,
      introspection_signed_response_alg: { type: 'string', enum: ['ES256'] },
      security_profile: { type: 'string', enum: ['fapi2'] },
      ...requestPolicy,
      ...backchannelLogout,
      secret: { type: 'boolean', default: true },
    },
    required: ['name', 'type', 'grant_types'],
    additionalProperties: false,
  },
  ClientPatch: {
    type: 'object',
    properties: {
      name,
      grant_types: grantTypes,
      redirect_uris: urls,
      post_logout_redirect_uris: urls,
      scopes,
      resources: { ...urls, minItems: 1 },
      token_exchange: tokenExchange,
      ...requestPolicy,
      // null removes the URI
      backchannel_logout_uri: { anyOf: [backchannelLogout.backchannel_logout_uri, { type: 'null' }] },
      backchannel_logout_session_required: { type: 'boolean' },
    },
    additionalProperties: false,
    minProperties: 1,
  },
  AccountPatch: {
    type: 'object',
    properties: {
      roles: { type: 'array', items: { type: 'string', enum: [...ROLES] }, minItems: 1, maxItems: 3 },
      status: { type: 'string', enum: ['active', 'disabled'] },
      plan: { type: 'string', enum: [...PLAN_NAMES] },
    },
    additionalProperties: false,
    minProperties: 1,
  },
};
