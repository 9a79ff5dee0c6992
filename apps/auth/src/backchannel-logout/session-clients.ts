import type { Deps } from '../deps';
import { enqueueLogouts, type OutboxDeps } from './logout-outbox';
import { sessionClaim } from './logout-token';

type SessionDeps = Pick<Deps, 'redis' | 'config'> & OutboxDeps;

// Which clients got an authorization in a sign-in session (the RPs that "have a session" with it, §2.7),
// and which sessions an account has: what a logout must reach. Both live as long as the sessions.
const clientsKey = (sessionId: string) => `auth:session-clients:${sessionId}`;
const accountKey = (accountId: string) => `auth:account-sessions:${accountId}`;

/** Records that `clientId` was given a code in the session (called as the code is issued). */
export async function recordSessionClient(
  deps: Pick<Deps, 'redis' | 'config'>,
  session: { id: string; accountId: string },
  clientId: string,
): Promise<void> {
  const ttl = deps.config.SESSION_TTL;
  await deps.redis
    .multi()
    .sadd(clientsKey(session.id), clientId)
    .expire(clientsKey(session.id), ttl)
    .sadd(accountKey(session.accountId), session.id)
    .expire(accountKey(session.accountId), ttl)
    .exec();
}

/** Takes the session's clients once (MULTI: two endings of one session do not both get them). */
async function takeClients(deps: SessionDeps, sessionId: string): Promise<string[]> {
  const replies = await deps.redis.multi().smembers(clientsKey(sessionId)).del(clientsKey(sessionId)).exec();
  const members = replies?.[0]?.[1];
  return Array.isArray(members) ? members.filter((m): m is string => typeof m === 'string') : [];
}

/** A sign-in session ended (sign-out): every client that had a session with it gets a logout token. */
export async function sessionEnded(deps: SessionDeps, sessionId: string, accountId: string): Promise<void> {
  const clientIds = await takeClients(deps, sessionId);
  await deps.redis.srem(accountKey(accountId), sessionId);
  if (clientIds.length) await enqueueLogouts(deps, { sub: accountId, sid: sessionClaim(sessionId), clientIds });
}

/**
 * Every sign-in session of the account ended at once (suspension, a password or role change: the
 * account's security version moved, pages/session.ts): each session's clients get a logout token.
 */
export async function accountSessionsEnded(deps: SessionDeps, accountId: string): Promise<void> {
  const replies = await deps.redis.multi().smembers(accountKey(accountId)).del(accountKey(accountId)).exec();
  const sessions = replies?.[0]?.[1];
  if (!Array.isArray(sessions)) return;
  for (const sessionId of sessions) {
    if (typeof sessionId !== 'string') continue;
    const clientIds = await takeClients(deps, sessionId);
    if (clientIds.length) await enqueueLogouts(deps, { sub: accountId, sid: sessionClaim(sessionId), clientIds });
  }
}
