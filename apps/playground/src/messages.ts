/**
 * The texts a person reads when something is refused, in one place: by error code (OAuth's `error`,
 * GraphQL's `extensions.code`, the speech API's `detail.status`), else by HTTP status. A code not
 * listed keeps the server's own message, which is already meant for people.
 */
const BY_CODE: Readonly<Record<string, string>> = {
  // RFC 6749 §4.1.2.1: the person pressed Deny on the consent page.
  access_denied:
    'You declined to let the playground use your account, so you are not signed in. Sign in again whenever you like.',
  login_required: 'Please sign in.',
  consent_required: 'Please sign in and allow the playground to use your account.',
  invalid_grant: 'Your sign-in has expired: sign in again.',
  UNAUTHENTICATED: 'Your sign-in has expired: sign in again.',
};

const BY_STATUS: Readonly<Record<number, string>> = {
  401: 'Your sign-in has expired: sign in again.',
  429: 'Too many requests for your plan right now: wait a moment and try again.',
  502: 'A service behind the platform did not answer: try again in a moment.',
  503: 'The platform is busy: try again in a moment.',
};

/** What to tell a person about a refusal with this code and HTTP status; `serverText` when neither is listed. */
export function friendlyText(code: string, status: number, serverText: string | undefined): string {
  return BY_CODE[code] ?? serverText ?? BY_STATUS[status] ?? `The request failed (HTTP ${status}).`;
}

/**
 * Shown, quietly, while a request waits out a 429's Retry-After before its one retry (pacing.ts): the
 * plan's limit, not a failure.
 */
export const WAITING_FOR_PLAN_LIMIT = 'Waiting for your plan’s limit…';
