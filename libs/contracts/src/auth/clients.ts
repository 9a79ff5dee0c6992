import { z } from 'zod/v4';
import { GRANT_TYPES } from '@platform/oauth-grants';

/** The algorithms a client may sign its request objects and client assertions with (never `none`, never HMAC for keys). */
export const CLIENT_KEY_ALGS = ['ES256', 'ES384', 'EdDSA', 'PS256', 'RS256'] as const;
/** RFC 9701: the signed introspection answer's algorithms, the server's own keys' (encrypted answers are not offered). */
export const INTROSPECTION_SIGNING_ALGS = ['ES256'] as const;
/** Client profiles: `fapi2`, the FAPI 2.0 Security Profile (docs/auth.md "FAPI 2.0"). */
export const SECURITY_PROFILES = ['fapi2'] as const;

const CLIENT_ID = /^[A-Za-z0-9._-]{3,64}$/;
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/;

/**
 * A public JSON Web Key (RFC 7517 §4): `kty` and members whose values are strings or lists of strings
 * (`x5c`, `key_ops`), named in printable ASCII (a name with a NUL byte cannot even be stored), and none of
 * the private members of RFC 7518 §6 (a client registers the keys it verifies with, never a secret one).
 */
const JWK_MEMBER = /^[\x21-\x7E]{1,64}$/;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const publicJwk = z
  .record(z.string().regex(JWK_MEMBER), z.union([z.string().max(8192), z.array(z.string().max(8192)).max(20)]))
  .refine((key) => typeof key.kty === 'string', 'a JSON Web Key needs kty')
  .refine(
    (key) => !PRIVATE_MEMBERS.some((name) => name in key),
    'a registered key must be public (no private members)',
  );

/** A client's public key set (RFC 7517 §5). */
export const clientJwks = z.object({ keys: z.array(publicJwk).min(1).max(20) });

/**
 * A redirect URI (RFC 6749 §3.1.2): absolute, without a fragment, and never a scheme that makes the browser run or
 * show content of the URI itself (RFC 7591 §5 and RFC 6819 §4.4.1.5: an open or dynamically registered client could
 * otherwise be sent codes through `javascript:`). Private-use schemes of native apps (RFC 8252 §7.1) stay allowed.
 */
export const redirectUri = z
  .string()
  .url()
  .max(2000)
  .refine((uri) => !uri.includes('#'), 'must not contain a fragment (RFC 6749 §3.1.2)')
  .refine((uri) => !/^(javascript|data|vbscript|file|blob|about):/i.test(uri), 'this URI scheme is not allowed');

/** Back-channel logout (OpenID Connect Back-Channel Logout 1.0 §2.2); auth checks its scheme and host. */
const backchannelLogoutUri = z.string().url().max(2000);

/**
 * A client registration of the administration API (`POST /admin/clients`, the admin CLI, and what dynamic
 * registration's RFC 7591 metadata is turned into). Unknown members are refused (`.strict()` where it is read).
 */
export const clientRegistration = z.object({
  client_id: z.string().regex(CLIENT_ID).optional(),
  name: z.string().min(1).max(100),
  type: z.enum(['confidential', 'public']),
  grant_types: z.array(z.enum(GRANT_TYPES)).min(1),
  redirect_uris: z.array(redirectUri).max(20).default([]),
  post_logout_redirect_uris: z.array(redirectUri).max(20).default([]),
  backchannel_logout_uri: backchannelLogoutUri.optional(),
  backchannel_logout_session_required: z.boolean().default(false),
  scopes: z.array(z.string().regex(SCOPE_TOKEN)).max(50).default([]),
  resources: z.array(z.string().url().max(2000)).max(20).default([]),
  jwks: clientJwks.optional(),
  /** Where the client publishes its keys instead of `jwks` (never both, RFC 7591 §2); https, or http on loopback for development. */
  jwks_uri: z
    .string()
    .url()
    .max(2000)
    .refine((uri) => /^https?:\/\//i.test(uri), 'jwks_uri must be an https URL')
    .optional(),
  /** RFC 9101: the one algorithm its request objects are signed with (never `none`). */
  request_object_signing_alg: z.enum(CLIENT_KEY_ALGS).optional(),
  /** RFC 9126 §6: authorization requests only through /par. */
  require_pushed_authorization_requests: z.boolean().optional(),
  /** RFC 9101 §10.5: authorization requests only as signed request objects. */
  require_signed_request_object: z.boolean().optional(),
  /** Token exchange: other clients whose tokens this one may exchange (RFC 8693 §5). */
  token_exchange: z.object({ allowed_clients: z.array(z.string().regex(CLIENT_ID)).max(50) }).optional(),
  /** RFC 9701: only the server's own key's alg; encrypted answers (`introspection_encrypted_response_alg`) are not offered. */
  introspection_signed_response_alg: z.enum(INTROSPECTION_SIGNING_ALGS).optional(),
  /** `fapi2`: the FAPI 2.0 Security Profile's rules apply to this client. */
  security_profile: z.enum(SECURITY_PROFILES).optional(),
  /** Confidential clients get a generated secret unless they authenticate only with private_key_jwt. */
  secret: z.boolean().default(true),
});
export type ClientRegistration = z.input<typeof clientRegistration>;

/** What an administrator may change on a registration (`PATCH /admin/clients/{id}`; secrets have their own action, rotation). */
export const clientPatch = clientRegistration
  .pick({
    name: true,
    grant_types: true,
    token_exchange: true,
    jwks_uri: true,
    request_object_signing_alg: true,
    require_pushed_authorization_requests: true,
    require_signed_request_object: true,
  })
  .extend({
    redirect_uris: clientRegistration.shape.redirect_uris.removeDefault(),
    post_logout_redirect_uris: clientRegistration.shape.post_logout_redirect_uris.removeDefault(),
    scopes: clientRegistration.shape.scopes.removeDefault(),
    resources: clientRegistration.shape.resources.removeDefault().min(1),
    // null removes the URI
    backchannel_logout_uri: backchannelLogoutUri.nullable(),
    backchannel_logout_session_required: z.boolean(),
  })
  .partial()
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, 'name at least one field to change');
export type ClientPatch = z.output<typeof clientPatch>;

/** `POST /admin/registration-tokens`: lifetime (seconds, default one day, at most 30 days) and an optional use count. */
export const initialAccessTokenRequest = z
  .object({
    expires_in: z
      .number()
      .int()
      .min(60)
      .max(30 * 24 * 3600)
      .default(86_400),
    max_uses: z.number().int().min(1).max(10_000).optional(),
  })
  .strict();
