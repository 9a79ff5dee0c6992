import type { Deps } from '../deps';

/**
 * Consent given in a sign-in session, per client: what `prompt=none` may grant again without a page
 * (OpenID Connect Core 1.0 §3.1.2.6: an error only when the client lacks consent). It lives as long
 * as the session (SESSION_TTL) and dies with it: a new sign-in, a sign-out or a change of the account's
 * rights (which ends the session) means asking again. Requests without `prompt=none` still show the
 * consent page every time.
 */
interface Consent {
  scopes: string[];
  audience: string[];
}

const consentKey = (sessionId: string, clientId: string) => `auth:consent:${sessionId}:${clientId}`;

export async function rememberConsent(
  deps: Pick<Deps, 'redis' | 'config'>,
  sessionId: string,
  clientId: string,
  granted: Consent,
): Promise<void> {
  const before = await consentOf(deps, sessionId, clientId);
  const merged: Consent = {
    scopes: [...new Set([...(before?.scopes ?? []), ...granted.scopes])],
    audience: [...new Set([...(before?.audience ?? []), ...granted.audience])],
  };
  await deps.redis.set(consentKey(sessionId, clientId), JSON.stringify(merged), 'EX', deps.config.SESSION_TTL);
}

async function consentOf(deps: Pick<Deps, 'redis'>, sessionId: string, clientId: string): Promise<Consent | null> {
  const raw = await deps.redis.get(consentKey(sessionId, clientId));
  return raw ? (JSON.parse(raw) as Consent) : null;
}

/** Whether the session already consented to every scope and resource of this request. */
export async function consentCovers(
  deps: Pick<Deps, 'redis'>,
  sessionId: string,
  clientId: string,
  wanted: Consent,
): Promise<boolean> {
  const consent = await consentOf(deps, sessionId, clientId);
  return (
    consent !== null &&
    wanted.scopes.every((s) => consent.scopes.includes(s)) &&
    wanted.audience.every((a) => consent.audience.includes(a))
  );
}
