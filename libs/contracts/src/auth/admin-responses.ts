import { z } from 'zod/v4';
import { ROLES } from '@platform/identity';
import { ACCOUNT_STATUSES } from './accounts';
import { SECURITY_PROFILES } from './clients';

// The administration API's answers (apps/auth/src/admin; clients/clients.ts `PublicClient`,
// accounts/account-model.ts `PublicAccount`), for the auth API document.

const time = z.string().meta({ format: 'date-time' });
const count = z.number().int().min(0);

/** Keyset paging: `next_cursor` is the next page's `cursor`, null on the last. */
const keysetPage = <T extends z.ZodType>(item: T) =>
  z
    .object({ items: z.array(item), next_cursor: z.string().nullable() })
    .meta({ description: 'Keyset paging: pass `next_cursor` as `cursor` for the next page; null on the last.' });

/** A client's registration as the administration API shows it (never its secret's hash). */
export const publicClient = z.object({
  client_id: z.string(),
  name: z.string(),
  type: z.enum(['confidential', 'public']),
  grant_types: z.array(z.string()),
  redirect_uris: z.array(z.string()),
  post_logout_redirect_uris: z.array(z.string()),
  scopes: z.array(z.string()),
  resources: z.array(z.string()),
  has_secret: z.boolean(),
  has_jwks: z.boolean(),
  token_exchange: z.object({ allowed_clients: z.array(z.string()) }),
  created_at: time,
  // Shown only when registered: RFC 9701's signing alg, the FAPI 2.0 profile, RFC 9101 / RFC 9126 policy,
  // OpenID Connect Back-Channel Logout 1.0 §2.2.
  introspection_signed_response_alg: z.string().optional(),
  security_profile: z.enum(SECURITY_PROFILES).optional(),
  jwks_uri: z.string().optional(),
  request_object_signing_alg: z.string().optional(),
  require_pushed_authorization_requests: z.literal(true).optional(),
  require_signed_request_object: z.literal(true).optional(),
  backchannel_logout_uri: z.string().optional(),
  backchannel_logout_session_required: z.boolean().optional(),
});

/** A new registration, and for a confidential client with a secret that secret, shown this once. */
export const registeredClient = publicClient
  .extend({ client_secret: z.string().optional() })
  .meta({ description: 'The registration, and for a confidential client with a secret that secret, shown this once.' });

/** A rotated client secret. */
export const clientSecret = z.object({ client_id: z.string(), client_secret: z.string() });

export const deletedClient = z.object({
  client_id: z.string(),
  deleted: z.literal(true),
  revoked_access_tokens: count,
});

export type PublicClient = z.output<typeof publicClient>;

export const clientPage = keysetPage(publicClient);

/** An account as auth shows it (admin API and internal endpoints): never its password hash. */
export const publicAccount = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  roles: z.array(z.enum(ROLES)),
  status: z.enum(ACCOUNT_STATUSES),
  plan: z.string(),
  createdAt: time,
});

export type PublicAccount = z.output<typeof publicAccount>;

export const accountPage = keysetPage(publicAccount);

/** The sign-in limits an unlock cleared. */
export const unlockedLogins = z.object({ cleared: count });

export const signingKey = z.object({
  kid: z.string(),
  alg: z.string(),
  created_at: time,
  status: z.enum(['current', 'previous']),
  signing: z.boolean().meta({ description: 'A new key waits KEY_ACTIVATION_DELAY before it signs.' }),
});

export const signingKeys = z.object({ items: z.array(signingKey) });

export const rotatedKey = z.object({ current: z.string(), signs_after_seconds: count });

export const retiredKey = z.object({ kid: z.string(), retired: z.literal(true) });

/** One entry of the administration audit log. */
export const auditEntry = z.object({
  id: z.string(),
  at: time,
  actor: z.looseObject({ type: z.enum(['account', 'client', 'cli']), id: z.string() }),
  action: z
    .string()
    .meta({ examples: ['client.create', 'account.update', 'signing_key.rotate', 'registration_token.create'] }),
  target: z.looseObject({
    type: z.enum(['client', 'account', 'signing_key', 'api_key', 'sign_in_limit', 'registration_token']),
    id: z.string(),
  }),
  changes: z.looseObject({}).meta({ description: 'The new values of the fields the action set; never a secret.' }),
  request_id: z.string().nullable(),
});

export const auditPage = keysetPage(auditEntry);
