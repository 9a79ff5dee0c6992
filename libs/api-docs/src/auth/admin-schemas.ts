import { ROLES } from '@platform/identity';
import { schemaRef, type JsonObject } from '../speech/json-helpers';

const strings = { type: 'array', items: { type: 'string' } };
const time = { type: 'string', format: 'date-time' };
const page = (item: string): JsonObject => ({
  type: 'object',
  description: 'Keyset paging: pass `next_cursor` as `cursor` for the next page; null on the last.',
  required: ['items', 'next_cursor'],
  properties: { items: { type: 'array', items: schemaRef(item) }, next_cursor: { type: ['string', 'null'] } },
  additionalProperties: false,
});
const clientProperties: JsonObject = {
  client_id: { type: 'string' },
  name: { type: 'string' },
  type: { type: 'string', enum: ['confidential', 'public'] },
  grant_types: strings,
  redirect_uris: strings,
  post_logout_redirect_uris: strings,
  scopes: strings,
  resources: strings,
  has_secret: { type: 'boolean' },
  has_jwks: { type: 'boolean' },
  token_exchange: {
    type: 'object',
    required: ['allowed_clients'],
    properties: { allowed_clients: strings },
    additionalProperties: false,
  },
  created_at: time,
};

/** Shown only when registered (RFC 9701's signing alg; the FAPI 2.0 profile). */
const optionalClientProperties: JsonObject = {
  introspection_signed_response_alg: { type: 'string' },
  security_profile: { type: 'string', enum: ['fapi2'] },
  // RFC 9101 / RFC 9126 policy, shown when registered.
  jwks_uri: { type: 'string' },
  request_object_signing_alg: { type: 'string' },
  require_pushed_authorization_requests: { type: 'boolean', const: true },
  require_signed_request_object: { type: 'boolean', const: true },
  // OpenID Connect Back-Channel Logout 1.0 §2.2, shown when a backchannel_logout_uri is registered.
  backchannel_logout_uri: { type: 'string' },
  backchannel_logout_session_required: { type: 'boolean' },
};

/** The administration API's answers (apps/auth/src/admin; clients/clients.ts `PublicClient`, accounts/account-model.ts `PublicAccount`). */
export const adminSchemas: JsonObject = {
  Client: {
    type: 'object',
    required: Object.keys(clientProperties),
    properties: { ...clientProperties, ...optionalClientProperties },
    additionalProperties: false,
  },
  RegisteredClient: {
    type: 'object',
    description: 'The registration, and for a confidential client with a secret that secret, shown this once.',
    required: Object.keys(clientProperties),
    properties: { ...clientProperties, ...optionalClientProperties, client_secret: { type: 'string' } },
    additionalProperties: false,
  },
  ClientSecret: {
    type: 'object',
    required: ['client_id', 'client_secret'],
    properties: { client_id: { type: 'string' }, client_secret: { type: 'string' } },
    additionalProperties: false,
  },
  DeletedClient: {
    type: 'object',
    required: ['client_id', 'deleted', 'revoked_access_tokens'],
    properties: {
      client_id: { type: 'string' },
      deleted: { type: 'boolean', const: true },
      revoked_access_tokens: { type: 'integer', minimum: 0 },
    },
    additionalProperties: false,
  },
  ClientPage: page('Client'),
  Account: {
    type: 'object',
    required: ['id', 'name', 'email', 'roles', 'status', 'plan', 'createdAt'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      email: { type: 'string' },
      roles: { type: 'array', items: { type: 'string', enum: [...ROLES] } },
      status: { type: 'string', enum: ['active', 'disabled'] },
      plan: { type: 'string' },
      createdAt: time,
    },
    additionalProperties: false,
  },
  AccountPage: page('Account'),
  Unlocked: {
    type: 'object',
    required: ['cleared'],
    properties: { cleared: { type: 'integer', minimum: 0 } },
    additionalProperties: false,
  },
  SigningKey: {
    type: 'object',
    required: ['kid', 'alg', 'created_at', 'status', 'signing'],
    properties: {
      kid: { type: 'string' },
      alg: { type: 'string' },
      created_at: time,
      status: { type: 'string', enum: ['current', 'previous'] },
      signing: { type: 'boolean', description: 'A new key waits KEY_ACTIVATION_DELAY before it signs.' },
    },
    additionalProperties: false,
  },
  SigningKeys: {
    type: 'object',
    required: ['items'],
    properties: { items: { type: 'array', items: schemaRef('SigningKey') } },
    additionalProperties: false,
  },
  RotatedKey: {
    type: 'object',
    required: ['current', 'signs_after_seconds'],
    properties: { current: { type: 'string' }, signs_after_seconds: { type: 'integer', minimum: 0 } },
    additionalProperties: false,
  },
  RetiredKey: {
    type: 'object',
    required: ['kid', 'retired'],
    properties: { kid: { type: 'string' }, retired: { type: 'boolean', const: true } },
    additionalProperties: false,
  },
  AuditEntry: {
    type: 'object',
    required: ['id', 'at', 'actor', 'action', 'target', 'changes', 'request_id'],
    properties: {
      id: { type: 'string' },
      at: time,
      actor: {
        type: 'object',
        required: ['type', 'id'],
        properties: { type: { type: 'string', enum: ['account', 'client', 'cli'] }, id: { type: 'string' } },
      },
      action: {
        type: 'string',
        examples: ['client.create', 'account.update', 'signing_key.rotate', 'registration_token.create'],
      },
      target: {
        type: 'object',
        required: ['type', 'id'],
        properties: {
          type: {
            type: 'string',
            enum: ['client', 'account', 'signing_key', 'api_key', 'sign_in_limit', 'registration_token'],
          },
          id: { type: 'string' },
        },
      },
      changes: { type: 'object', description: 'The new values of the fields the action set; never a secret.' },
      request_id: { type: ['string', 'null'] },
    },
    additionalProperties: false,
  },
  AuditPage: page('AuditEntry'),
};
