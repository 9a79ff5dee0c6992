import { z } from 'zod/v4';

// The answers of the OAuth 2.0 and OpenID Connect endpoints (apps/auth/src/oauth, oidc, par, device), for
// the auth API document.

const seconds = z.number().int().min(0);
const url = z.string().meta({ format: 'uri' });
const strings = z.array(z.string());

/** RFC 6749 §5.1 (`/token`). */
export const tokenResponse = z
  .object({
    access_token: z.string().meta({ description: 'A JWT (RFC 9068) signed with ES256.' }),
    token_type: z.enum(['Bearer', 'DPoP']),
    expires_in: seconds.min(1),
    scope: z.string(),
    refresh_token: z.string().optional(),
    refresh_expires_in: seconds.min(1).optional(),
    issued_token_type: z.string().optional().meta({ description: 'Token exchange only (RFC 8693 §2.2.1).' }),
    id_token: z
      .string()
      .optional()
      .meta({ description: 'When `openid` was granted (OpenID Connect Core 1.0 §3.1.3.3).' }),
  })
  .meta({
    description:
      'RFC 6749 §5.1, with `Cache-Control: no-store`. A DPoP-bound token has `token_type: DPoP` (RFC 9449 §5).',
  });

/** RFC 7662 §2.2 (`/introspect`). */
export const introspectionResponse = z
  .object({
    active: z.boolean(),
    scope: z.string().optional(),
    client_id: z.string().optional(),
    username: z.string().optional(),
    token_type: z.enum(['Bearer', 'DPoP', 'refresh_token']).optional(),
    exp: seconds.optional(),
    iat: seconds.optional(),
    nbf: seconds.optional(),
    sub: z.string().optional(),
    aud: z.union([z.string(), strings]).optional(),
    iss: z.string().optional(),
    jti: z.string().optional(),
    cnf: z.looseObject({ jkt: z.string() }).optional().meta({ description: 'The DPoP key thumbprint (RFC 9449 §6).' }),
    act: z.looseObject({}).optional().meta({ description: 'The actor of a delegated token (RFC 8693 §4.1).' }),
  })
  .meta({
    description:
      'RFC 7662 §2.2. `{active: false}` for a token that is invalid, expired, revoked, or not the asking client’s to know about (its own tokens and those meant for a resource server it is, INTROSPECTION_RESOURCE_SERVERS).',
  });

/** RFC 9126 §2.2 (`/par`). */
export const pushedAuthorizationResponse = z
  .object({
    request_uri: z.string().meta({
      pattern: '^urn:ietf:params:oauth:request_uri:',
      description: 'For `/authorize?client_id=…&request_uri=…`: once, by this client.',
    }),
    expires_in: seconds.min(1).meta({ description: 'PAR_TTL seconds.' }),
  })
  .meta({ description: 'RFC 9126 §2.2, with `Cache-Control: no-store`.' });

/** RFC 8628 §3.2 (`/device_authorization`). */
export const deviceAuthorizationResponse = z
  .object({
    device_code: z.string(),
    user_code: z.string().meta({ description: 'What the person types at `verification_uri`.' }),
    verification_uri: url,
    verification_uri_complete: url,
    expires_in: seconds.min(1),
    interval: seconds.min(1).meta({ description: 'Seconds between polls of `/token`.' }),
  })
  .meta({ description: 'RFC 8628 §3.2.' });

/** OAuth 2.0 Authorization Server Metadata (RFC 8414 §2). */
export const serverMetadata = z
  .looseObject({
    issuer: url,
    authorization_endpoint: url,
    token_endpoint: url,
    jwks_uri: url,
    revocation_endpoint: url.optional(),
    introspection_endpoint: url.optional(),
    device_authorization_endpoint: url.optional(),
    registration_endpoint: url.optional(),
    pushed_authorization_request_endpoint: url.optional(),
    require_pushed_authorization_requests: z
      .boolean()
      .optional()
      .meta({ description: 'REQUIRE_PUSHED_AUTHORIZATION_REQUESTS: every client must use PAR.' }),
    request_parameter_supported: z.boolean().optional(),
    request_object_signing_alg_values_supported: strings.optional(),
    require_signed_request_object: z
      .literal(true)
      .optional()
      .meta({ description: 'Present when REQUIRE_SIGNED_REQUEST_OBJECT is set.' }),
    userinfo_endpoint: url.optional(),
    end_session_endpoint: url.optional(),
    response_types_supported: strings,
    response_modes_supported: strings.optional(),
    grant_types_supported: strings,
    token_endpoint_auth_methods_supported: strings.optional(),
    code_challenge_methods_supported: strings,
    scopes_supported: strings.optional(),
    dpop_signing_alg_values_supported: strings.optional(),
    authorization_response_iss_parameter_supported: z.boolean().optional(),
    introspection_signing_alg_values_supported: strings.optional(),
  })
  .meta({
    description:
      'OAuth 2.0 Authorization Server Metadata (RFC 8414 §2); every URL is at the gateway’s origin, the issuer.',
  });

/** What OpenID Connect Discovery 1.0 §3 adds to the RFC 8414 metadata (`serverMetadata`; `userinfo_endpoint` becomes required). */
export const openIdProviderMetadata = z.looseObject({
  userinfo_endpoint: url,
  subject_types_supported: strings,
  id_token_signing_alg_values_supported: strings,
  claims_supported: strings.optional(),
  backchannel_logout_supported: z
    .boolean()
    .optional()
    .meta({ description: 'OpenID Connect Back-Channel Logout 1.0 §2.1.' }),
  backchannel_logout_session_supported: z.boolean().optional(),
});

/** RFC 7517 §5: the server's public signing keys (never a private member). */
export const serverJwks = z
  .looseObject({
    keys: z
      .array(
        z
          .looseObject({
            kty: z.string(),
            kid: z.string(),
            alg: z.string().optional(),
            use: z.string().optional(),
            crv: z.string().optional(),
            x: z.string().optional(),
            y: z.string().optional(),
          })
          .meta({ not: { anyOf: [{ required: ['d'] }, { required: ['p'] }, { required: ['q'] }] } }),
      )
      .min(1),
  })
  .meta({ description: 'RFC 7517 §5: the current signing key and, after a rotation, the previous one.' });

/** OpenID Connect Core 1.0 §5.3.2 (`/userinfo`). */
export const userInfo = z
  .object({
    sub: z.string(),
    name: z.string().optional(),
    email: z.string().meta({ format: 'email' }).optional(),
    email_verified: z.boolean().optional(),
  })
  .meta({
    description:
      'OpenID Connect Core 1.0 §5.3.2: `name` with the `profile` scope, `email` and `email_verified` with `email`.',
  });
