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

/** What the consent pages tell the person each scope lets the client do (unknown scopes are shown bare). */
const SCOPE_MEANINGS: ReadonlyMap<string, string> = new Map([
  ['content:read', 'read posts, comments and profiles'],
  ['content:write', 'write posts and comments as you'],
  ['speech:read', 'list your voices, history and usage'],
  ['speech:write', 'synthesise speech, and clone, edit and delete your voices'],
  [
    API_KEYS_SCOPE,
    "create API keys for your account, with at most the speech access allowed here: they keep working after this sign-in ends, until you revoke them, this app's access is revoked, the app is removed, or your account's roles, status or password change",
  ],
  ['offline_access', 'stay signed in (a refresh token)'],
  [OPENID_SCOPE, 'sign you in'],
  [PROFILE_SCOPE, 'see your name'],
  [EMAIL_SCOPE, 'see your email address'],
]);

export function scopeMeaning(scope: string): string | undefined {
  return SCOPE_MEANINGS.get(scope);
}
