import { API_KEYS_SCOPE } from './api-key-scopes';

/**
 * What each scope of the platform lets a client do, said once for its two readers: `person`, the
 * consent and device pages' words to the person asked (auth), and `developer`, the interface
 * documents' OAuth 2.0 flows (api-docs). OpenID Connect's own scopes are only ever shown to a person.
 */
export interface ScopeMeaning {
  person: string;
  developer?: string;
}

export const SCOPE_MEANINGS = {
  'content:read': {
    person: 'read posts, comments and profiles',
    developer: 'Read posts and profiles (REST GET, GraphQL queries). `content:write` includes it.',
  },
  'content:write': {
    person: 'write posts and comments as you',
    developer:
      'Create, change and delete posts and comments, change profiles (REST PUT/PATCH/POST/DELETE, GraphQL mutations).',
  },
  'speech:read': {
    person: 'list your voices, history and usage',
    developer: 'List models, voices, history, the user and API keys.',
  },
  'speech:write': {
    person: 'synthesise speech, and clone, edit and delete your voices',
    developer: 'Synthesise speech, clone, edit and delete voices, delete history.',
  },
  [API_KEYS_SCOPE]: {
    person:
      "create API keys for your account, with at most the speech access allowed here: they keep working after this sign-in ends, until you revoke them, this app's access is revoked, the app is removed, or your account's roles, status or password change",
    developer:
      'Create and revoke the account’s API keys (with `speech:write`). A key holds at most the token’s speech scopes and is revoked with the token, its grant, its client and any change of the account’s roles, status or password. Access tokens only: never an API key’s scope.',
  },
  offline_access: { person: 'stay signed in (a refresh token)' },
  openid: { person: 'sign you in' },
  profile: { person: 'see your name' },
  email: { person: 'see your email address' },
} as const satisfies Record<string, ScopeMeaning>;

export type DocumentedScope = {
  [S in keyof typeof SCOPE_MEANINGS]: (typeof SCOPE_MEANINGS)[S] extends { developer: string } ? S : never;
}[keyof typeof SCOPE_MEANINGS];

/** What a documented scope means to a developer (the OpenAPI documents' OAuth 2.0 flows). */
export function developerMeaning(scope: DocumentedScope): string {
  return SCOPE_MEANINGS[scope].developer;
}

/** What the person asked to consent is told a scope allows; undefined for a scope the platform does not know. */
export function personMeaning(scope: string): string | undefined {
  return Object.hasOwn(SCOPE_MEANINGS, scope) ? SCOPE_MEANINGS[scope as keyof typeof SCOPE_MEANINGS].person : undefined;
}
