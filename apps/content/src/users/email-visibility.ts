import { isAdmin, type Caller } from '../identity/caller';

/**
 * Who may read a user's email (GraphQL `User.email`, the REST user's `email`): the user themself
 * and admins. Everything that could reveal an email, ordering users by it included, asks here.
 */
export function canReadEmail(caller: Caller, userId: string): boolean {
  return (caller.id !== null && caller.id === userId) || isAdmin(caller);
}

/** Whether the caller may read every user's email, which ordering users by email amounts to. */
export function canReadEveryEmail(caller: Caller): boolean {
  return isAdmin(caller);
}
