import type { ClientSession } from 'mongoose';
import { buildContentEvent } from '@platform/events';
import { isRole, ROLES } from '@platform/identity';
import type { Caller } from '../identity/caller';
import { isAdmin } from '../identity/caller';
import { DomainError, forbiddenError, isDuplicateKey, notFoundError, validationError } from '../domain/domain-errors';
import type { ContentDeps } from '../domain/deps';
import type { Account } from '../auth-client/auth-client';
import { insertBuilt, type UserDoc, type UserRole, type UserStatus } from '../models';
import { firstRevision, writeWithEvents } from '../outbox/write-with-events';
import { userSnapshot } from '../outbox/snapshots';

/**
 * User profiles: created from auth accounts, changed by their owner or an admin. Each write and
 * its event commit in one transaction (outbox/write-with-events.ts).
 */

/** The account's highest role: `ROLES` lists them highest first. */
function roleOf(account: Account): UserRole {
  for (const r of ROLES) if (account.roles?.includes(r)) return r;
  return 'USER';
}

export async function findUser(deps: ContentDeps, id: string, session?: ClientSession): Promise<UserDoc | null> {
  return deps.models.users
    .findById(id)
    .session(session ?? null)
    .lean<UserDoc>();
}

/** Creates the profile of an auth account (idempotent: an existing profile is returned). */
export async function createProfile(deps: ContentDeps, account: Account, now = new Date()): Promise<UserDoc> {
  const existing = await findUser(deps, account.id);
  if (existing) return existing;
  let created = false;
  let user: UserDoc;
  try {
    user = await writeWithEvents(deps, async (session) => {
      const raced = await findUser(deps, account.id, session);
      created = raced === null;
      if (raced) return { result: raced, events: [] };
      const doc: UserDoc = {
        _id: account.id,
        name: account.name,
        nameLower: account.name.toLowerCase(),
        email: account.email.toLowerCase(),
        avatar: null,
        status: 'ACTIVE',
        role: roleOf(account),
        createdAt: now,
        updatedAt: null,
        updatedAtSort: now,
        // A profile deleted earlier may come back (its account still signs in): its revisions go on.
        rev: await firstRevision(deps.models, session, 'users', account.id),
      };
      await insertBuilt(deps.models.users, [doc], session);
      const event = buildContentEvent('user.created', userSnapshot(doc), { time: now });
      return { result: doc, events: [{ entityType: 'users', entityId: doc._id, rev: doc.rev, event }] };
    });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const raced = await findUser(deps, account.id);
    if (raced) return raced;
    throw new DomainError('conflict', 'Email already in use', { email: 'This email is already used.' });
  }
  if (created) await deps.invalidate('User');
  return user;
}

/**
 * The caller's profile, created from auth's account on first use (an account registered
 * through auth directly, or an OAuth client acting for a user, has no profile yet). Read through
 * the user memo when there is one, under `userVersion` when the request already asked for it
 * (cache/user-memo.ts): a Redis GET instead of a MongoDB query, with the same guarantee that no
 * profile older than the last committed write is returned.
 */
export async function ensureProfile(
  deps: ContentDeps,
  caller: Caller,
  userVersion?: Promise<string | null>,
): Promise<UserDoc> {
  if (!caller.id) throw new DomainError('unauthenticated', 'Authentication required');
  const found = deps.users
    ? ((await deps.users.load([caller.id], await (userVersion ?? deps.users.version()))).get(caller.id) ?? null)
    : await findUser(deps, caller.id);
  if (found) return found;
  const account = await deps.auth.getAccount(caller.id);
  if (!account.ok) throw new DomainError('unauthenticated', 'Unknown account');
  return createProfile(deps, account.value);
}

export interface ProfileChanges {
  name?: string;
  email?: string;
  avatar?: string | null;
  status?: UserStatus;
  role?: UserRole;
}

/**
 * Applies changes to a profile: own profile or ADMIN; role and status only by ADMIN. Email,
 * role and status also live in auth (they are credentials and token claims), so auth is told
 * first; a refusal there changes nothing here.
 */
export async function updateProfile(
  deps: ContentDeps,
  caller: Caller,
  id: string,
  changes: ProfileChanges,
): Promise<UserDoc> {
  const current = await findUser(deps, id);
  if (!current) throw notFoundError('User');
  if (caller.id !== id && !isAdmin(caller)) throw forbiddenError('You may only change your own profile');
  if ((changes.role !== undefined || changes.status !== undefined) && !isAdmin(caller)) {
    throw new DomainError('forbidden', 'Only an admin may change role or status', {
      [changes.role !== undefined ? 'role' : 'status']: 'Only an admin may change this value.',
    });
  }
  if (changes.role !== undefined && !isRole(changes.role))
    throw validationError({ role: 'This value is not a valid role.' });
  const email = changes.email?.toLowerCase();
  const authChanges: { email?: string; roles?: string[]; status?: string; name?: string } = {};
  if (email !== undefined && email !== current.email) authChanges.email = email;
  if (changes.role !== undefined || changes.status !== undefined) {
    // Role and status are compared with auth's account, not with this profile: the account may have been
    // changed in auth directly (operators' tooling), and a demotion or suspension that this profile
    // already shows must still reach auth, which revokes the account's tokens when they change.
    const account = await deps.auth.getAccount(id);
    if (!account.ok && account.status !== 404)
      throw new DomainError('unavailable', 'Authorization service refused the account lookup');
    const held = account.ok ? account.value : undefined;
    const sameRoles = held !== undefined && held.roles.length === 1 && held.roles[0] === changes.role;
    if (changes.role !== undefined && (held ? !sameRoles : changes.role !== current.role))
      authChanges.roles = [changes.role];
    // auth knows two account states: only ACTIVE profiles may sign in.
    const authStatus = changes.status === 'ACTIVE' ? 'active' : 'disabled';
    if (changes.status !== undefined && (held ? held.status !== authStatus : changes.status !== current.status))
      authChanges.status = authStatus;
  }
  if (Object.keys(authChanges).length > 0) {
    if (changes.name !== undefined) authChanges.name = changes.name;
    const result = await deps.auth.updateAccount(id, authChanges);
    if (!result.ok) {
      if (result.status === 409)
        throw new DomainError('conflict', 'Email already in use', { email: 'This email is already used.' });
      if (result.status === 404) throw notFoundError('User');
      throw validationError({
        [Object.keys(authChanges)[0]!]: 'This value was rejected by the authorization service.',
      });
    }
  }
  let user: UserDoc;
  try {
    user = await writeWithEvents(deps, async (session) => {
      const latest = await findUser(deps, id, session);
      if (!latest) throw notFoundError('User');
      const now = new Date();
      const next: UserDoc = {
        ...latest,
        ...(changes.name !== undefined ? { name: changes.name, nameLower: changes.name.toLowerCase() } : {}),
        ...(email !== undefined ? { email } : {}),
        ...(changes.avatar !== undefined ? { avatar: changes.avatar } : {}),
        ...(changes.status !== undefined ? { status: changes.status } : {}),
        ...(changes.role !== undefined ? { role: changes.role } : {}),
        updatedAt: now,
        updatedAtSort: now,
        rev: latest.rev + 1,
      };
      const { _id: _i, ...fields } = next;
      await deps.models.users.updateOne({ _id: id }, { $set: fields }, { session });
      const event = buildContentEvent('user.updated', userSnapshot(next), { time: now });
      return { result: next, events: [{ entityType: 'users', entityId: id, rev: next.rev, event }] };
    });
  } catch (err) {
    if (isDuplicateKey(err))
      throw new DomainError('conflict', 'Email already in use', { email: 'This email is already used.' });
    throw err;
  }
  await deps.invalidate('User');
  return user;
}

/** Deletes the profile (ADMIN only); its `user.deleted` event commits with the deletion. */
export async function deleteProfile(deps: ContentDeps, caller: Caller, id: string): Promise<void> {
  if (!isAdmin(caller)) throw forbiddenError('Only an admin may delete users');
  if (!(await findUser(deps, id))) throw notFoundError('User');
  // The account goes with its profile: disabled in auth first, which revokes every token it holds, so
  // the deleted user can neither go on with a token nor sign in again (and get a new profile from auth).
  // An account auth does not know (404) has nothing to disable.
  const disabled = await deps.auth.updateAccount(id, { status: 'disabled' });
  if (!disabled.ok && disabled.status !== 404)
    throw new DomainError('unavailable', 'The authorization service did not disable the account');
  await writeWithEvents(deps, async (session) => {
    const current = await findUser(deps, id, session);
    if (!current) throw notFoundError('User');
    const now = new Date();
    await deps.models.users.deleteOne({ _id: id }, { session });
    const event = buildContentEvent('user.deleted', userSnapshot({ ...current, status: 'DELETED', updatedAt: now }), {
      time: now,
    });
    return { result: undefined, events: [{ entityType: 'users', entityId: id, rev: current.rev + 1, event }] };
  });
  await deps.invalidate('User');
}
