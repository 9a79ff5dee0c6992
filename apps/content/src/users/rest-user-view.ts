import type { RestRole, User } from '@platform/contracts';
import type { Caller } from '../identity/caller';
import type { UserDoc } from '../models';
import { canReadEmail } from './email-visibility';

/**
 * The REST user resource (the contract's User): `email` only to the user themself and to admins; passwords
 * never reach content at all. `roles` in the REST spelling (ROLE_*); `status` as stored, which may be a
 * retired value (libs/events closed lists).
 */
type RestUser = Omit<User, 'status'> & { status: UserDoc['status'] };

function restRoles(role: string): RestRole[] {
  if (role === 'ADMIN') return ['ROLE_ADMIN', 'ROLE_USER'];
  if (role === 'MODERATOR') return ['ROLE_MODERATOR', 'ROLE_USER'];
  return ['ROLE_USER'];
}

export function renderUser(user: UserDoc, viewer: Caller | 'self'): RestUser {
  const showEmail = viewer === 'self' || canReadEmail(viewer, user._id);
  return {
    id: user._id,
    name: user.name,
    ...(showEmail ? { email: user.email } : {}),
    avatar: user.avatar ?? null,
    status: user.status,
    roles: restRoles(user.role),
    createdAt: new Date(user.createdAt).toISOString(),
    updatedAt: user.updatedAt ? new Date(user.updatedAt).toISOString() : null,
  };
}
