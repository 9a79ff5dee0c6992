import { ROLE_RANKS } from '@platform/events';
import type { Identity, Role } from '@platform/identity';

/**
 * Who is calling, as content needs it. Roles rank ADMIN > MODERATOR > USER; REST's ROLE_ADMIN
 * is ADMIN and ROLE_USER is any authenticated role (design notes, "Identity, one system").
 */
export interface Caller {
  id: string | null;
  role: Role | null;
  scope: Set<string>;
  method: Identity['method'];
  /** Stable key for per-caller limits and caches: the account id, or the client address. */
  key: string;
  /** The client's address as the gateway resolved and signed it (identity `clientAddress`). */
  address: string;
}

const rank = (role: Role | 'GUEST'): number => ROLE_RANKS.get(role) ?? 0;

export function callerFromIdentity(identity: Identity, address: string): Caller {
  const role = identity.roles.reduce<Role | null>(
    (best, r) => (best === null || rank(r) > rank(best) ? r : best),
    null,
  );
  return {
    id: identity.sub ?? null,
    role: identity.sub ? (role ?? 'USER') : null,
    scope: new Set(identity.scope.split(' ').filter(Boolean)),
    method: identity.method,
    key: identity.sub ? `u:${identity.sub}` : `a:${address}`,
    address,
  };
}

export function hasRole(caller: Caller, required: Role | 'GUEST'): boolean {
  if (required === 'GUEST') return true;
  if (!caller.id || !caller.role) return false;
  return rank(caller.role) >= rank(required);
}

export const isAdmin = (caller: Caller): boolean => hasRole(caller, 'ADMIN');
export const isModerator = (caller: Caller): boolean => hasRole(caller, 'MODERATOR');

/**
 * Scopes from the access token (architecture.md): reads need content:read (or content:write),
 * writes content:write. Internal and anonymous callers carry no token scopes: anonymous callers
 * are limited by what anonymous may do at all, internal ones are trusted services.
 */
export function hasScope(caller: Caller, need: 'read' | 'write'): boolean {
  if (caller.method === 'internal' || caller.method === 'anonymous') return true;
  if (need === 'read') return caller.scope.has('content:read') || caller.scope.has('content:write');
  return caller.scope.has('content:write');
}
