import { API_KEYS_SCOPE } from '@platform/oauth-resource';

/**
 * The scope that lets a client learn the account's email: only tokens granted it carry email-derived
 * claims (`username`, shown at introspection). The platform's own services never read the email from a
 * token (content gets it from auth's internal API), so no other scope implies it.
 */
export const EMAIL_SCOPE = 'email';

/**
 * OpenID Connect Core 1.0 §3.1.2.1: a code flow that asks for `openid` gets an ID token; `profile`
 * adds the account's name to the ID token and /userinfo (`email` adds `email`, `email_verified`).
 */
export const OPENID_SCOPE = 'openid';
export const PROFILE_SCOPE = 'profile';

/** Scopes this server knows (metadata `scopes_supported`); a client is registered with a subset. */
export const SUPPORTED_SCOPES = [
  'content:read',
  'content:write',
  'speech:read',
  'speech:write',
  API_KEYS_SCOPE,
  'offline_access',
  OPENID_SCOPE,
  PROFILE_SCOPE,
  EMAIL_SCOPE,
];
