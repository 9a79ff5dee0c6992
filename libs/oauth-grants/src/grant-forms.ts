import { z } from 'zod/v4';
import { defineGrantForm } from './grant-form';

/** A form parameter given once, 1 to `maxLength` characters (the other OAuth forms use it too: libs/contracts). */
export const text = (maxLength: number, description?: string) =>
  z
    .string()
    .min(1)
    .max(maxLength)
    .meta(description ? { description } : {});
/** RFC 8707 §2 resource indicators: a repeatable parameter (the device authorization form uses it too). */
export const resource = z
  .array(z.string().min(1).max(2000).meta({ format: 'uri' }))
  .max(10)
  .optional()
  .meta({
    description:
      'Resource indicators (RFC 8707): the APIs the token is for (the gateway’s origin, `<origin>/v1`, `<origin>/api`); repeat the parameter for more than one.',
  });
// Its tokens are checked by the grant (`invalid_scope`, RFC 6749 §5.2), not here (`invalid_request`).
export const scope = text(2000, 'Space-separated scopes; left out: the client’s registered scopes.').optional();

/** The token type RFC 8693 exchanges (§3): the only one this server accepts and issues. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export const authorizationCodeForm = defineGrantForm({
  type: 'authorization_code',
  schemaName: 'AuthorizationCodeGrant',
  title: 'authorization code with PKCE (RFC 7636)',
  description: 'RFC 6749 §4.1.3 with PKCE (RFC 7636): the code from `/authorize`.',
  parameters: {
    code: text(512),
    redirect_uri: text(2000, 'The one sent to `/authorize` (required when it was sent there).')
      .meta({ format: 'uri' })
      .optional(),
    // Only its length is a request error: a verifier of another form does not match (`invalid_grant`, RFC 7636 §4.6).
    code_verifier: text(
      128,
      'PKCE (RFC 7636 §4.5), S256; required for the codes of requests that sent a code_challenge.',
    )
      .meta({ minLength: 43, pattern: '^[A-Za-z0-9._~-]+$' })
      .optional(),
    resource,
  },
});

export const clientCredentialsForm = defineGrantForm({
  type: 'client_credentials',
  schemaName: 'ClientCredentialsGrant',
  title: 'client credentials',
  description: 'RFC 6749 §4.4: a confidential client’s own token.',
  parameters: { scope, resource },
});

export const refreshTokenForm = defineGrantForm({
  type: 'refresh_token',
  schemaName: 'RefreshTokenGrant',
  title: 'refresh token (rotated)',
  description: 'RFC 6749 §6: the refresh token is rotated; reusing an old one revokes its family.',
  parameters: { refresh_token: text(200), scope, resource },
});

export const deviceCodeForm = defineGrantForm({
  type: 'urn:ietf:params:oauth:grant-type:device_code',
  schemaName: 'DeviceCodeGrant',
  title: 'device authorization (RFC 8628)',
  description:
    'RFC 8628 §3.4: polled until the person approves (`authorization_pending`, `slow_down`, `expired_token`, `access_denied`).',
  parameters: { device_code: text(200) },
});

export const jwtBearerForm = defineGrantForm({
  type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
  schemaName: 'JwtBearerGrant',
  title: 'JWT bearer (RFC 7523)',
  description: 'RFC 7523 §2.1: a JWT assertion signed by a registered issuer.',
  parameters: { assertion: text(8192), scope, resource },
});

export const tokenExchangeForm = defineGrantForm({
  type: 'urn:ietf:params:oauth:grant-type:token-exchange',
  schemaName: 'TokenExchangeGrant',
  title: 'token exchange (RFC 8693)',
  description:
    'RFC 8693: a token for another audience (delegation with `actor_token`), for clients the subject token’s client allows.',
  parameters: {
    subject_token: text(8192),
    subject_token_type: z.literal(ACCESS_TOKEN_TYPE, { error: 'must be the access token type' }),
    // Checked by the grant, with their own descriptions (only access tokens are issued; an actor token and its type go together).
    requested_token_type: text(200).optional(),
    actor_token: text(8192).optional(),
    actor_token_type: text(200).optional(),
    resource,
    audience: resource.meta({ description: 'Logical names of the target services (RFC 8693 §2.1).' }),
    scope,
  },
});

/**
 * Every grant `POST /token` serves, in the order the metadata's `grant_types_supported` lists them. There
 * is no resource-owner password grant (OAuth 2.0 Security BCP). A new grant: its form here, and its
 * file in apps/auth/src/grants with its line in the registry there (which does not compile without one per form).
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
