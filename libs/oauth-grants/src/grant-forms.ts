import { defineGrantForm, type FormSchema } from './grant-form';

const text = (maxLength: number, description?: string): FormSchema => ({
  type: 'string',
  minLength: 1,
  maxLength,
  ...(description ? { description } : {}),
});
const resource: FormSchema = {
  type: 'array',
  maxItems: 10,
  items: { type: 'string', format: 'uri', maxLength: 2000 },
  description:
    'Resource indicators (RFC 8707): the APIs the token is for (the gateway’s origin, `<origin>/v1`, `<origin>/api`); repeat the parameter for more than one.',
};
const scope = text(2000, 'Space-separated scopes; left out: the client’s registered scopes.');

export const authorizationCodeForm = defineGrantForm({
  type: 'authorization_code',
  schemaName: 'AuthorizationCodeGrant',
  description: 'RFC 6749 §4.1.3 with PKCE (RFC 7636): the code from `/authorize`.',
  required: ['code'],
  parameters: {
    code: text(512),
    redirect_uri: {
      type: 'string',
      format: 'uri',
      maxLength: 2000,
      description: 'The one sent to `/authorize` (required when it was sent there).',
    },
    code_verifier: {
      type: 'string',
      minLength: 43,
      maxLength: 128,
      pattern: '^[A-Za-z0-9._~-]+$',
      description: 'PKCE (RFC 7636 §4.5), S256; required for the codes of requests that sent a code_challenge.',
    },
    resource,
  },
});

export const clientCredentialsForm = defineGrantForm({
  type: 'client_credentials',
  schemaName: 'ClientCredentialsGrant',
  description: 'RFC 6749 §4.4: a confidential client’s own token.',
  required: [],
  parameters: { scope, resource },
});

export const refreshTokenForm = defineGrantForm({
  type: 'refresh_token',
  schemaName: 'RefreshTokenGrant',
  description: 'RFC 6749 §6: the refresh token is rotated; reusing an old one revokes its family.',
  required: ['refresh_token'],
  parameters: { refresh_token: text(200), scope, resource },
});

export const deviceCodeForm = defineGrantForm({
  type: 'urn:ietf:params:oauth:grant-type:device_code',
  schemaName: 'DeviceCodeGrant',
  description:
    'RFC 8628 §3.4: polled until the person approves (`authorization_pending`, `slow_down`, `expired_token`, `access_denied`).',
  required: ['device_code'],
  parameters: { device_code: text(200) },
});

export const jwtBearerForm = defineGrantForm({
  type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
  schemaName: 'JwtBearerGrant',
  description: 'RFC 7523 §2.1: a JWT assertion signed by a registered issuer.',
  required: ['assertion'],
  parameters: { assertion: text(8192), scope, resource },
});

export const tokenExchangeForm = defineGrantForm({
  type: 'urn:ietf:params:oauth:grant-type:token-exchange',
  schemaName: 'TokenExchangeGrant',
  description:
    'RFC 8693: a token for another audience (delegation with `actor_token`), for clients the subject token’s client allows.',
  required: ['subject_token', 'subject_token_type'],
  parameters: {
    subject_token: text(8192),
    subject_token_type: { type: 'string', const: 'urn:ietf:params:oauth:token-type:access_token' },
    requested_token_type: text(200),
    actor_token: text(8192),
    actor_token_type: text(200),
    resource,
    audience: { ...resource, description: 'Logical names of the target services (RFC 8693 §2.1).' },
    scope,
  },
});

/**
 * Every grant `POST /token` serves, in the order the metadata's `grant_types_supported` lists them. There
 * is no resource-owner password grant (OAuth 2.0 Security BCP). A new grant: its form here, and its
 * descriptor in apps/auth/src/grants (the registry there does not compile without one per form).
 */
export const GRANT_FORMS = [
  authorizationCodeForm,
  clientCredentialsForm,
  refreshTokenForm,
  deviceCodeForm,
  jwtBearerForm,
  tokenExchangeForm,
] as const;

export type GrantType = (typeof GRANT_FORMS)[number]['type'];
export const GRANT_TYPES = GRANT_FORMS.map((form) => form.type) as [GrantType, ...GrantType[]];
