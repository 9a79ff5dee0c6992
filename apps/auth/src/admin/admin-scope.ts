/**
 * The scope of the administration API (`/admin/*`). A token carries it only when it was issued to an
 * account with the ADMIN role, or to a client for itself (client_credentials) whose registration lists
 * `admin` among its scopes (automation). Any other account's token is issued without it, as RFC 6749
 * §3.3 allows (the token response's `scope` says what was granted): a USER cannot obtain it whatever
 * the client asks for.
 */
export const ADMIN_SCOPE = 'admin';
export const ADMIN_ROLE = 'ADMIN';

interface ScopeHolder {
  sub: string;
  clientId: string;
  /** Roles of the account the token is for (none for a client's own token). */
  roles?: readonly string[] | undefined;
}

/** `scopes` without `admin` unless the holder may have it. */
export function grantableScopes(scopes: string[], holder: ScopeHolder): string[] {
  if (!scopes.includes(ADMIN_SCOPE)) return scopes;
  const forClientItself = holder.sub === holder.clientId && holder.roles === undefined;
  if (forClientItself || holder.roles?.includes(ADMIN_ROLE)) return scopes;
  return scopes.filter((s) => s !== ADMIN_SCOPE);
}
