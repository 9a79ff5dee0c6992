import { toPublicAccount, type AccountDoc, type PublicAccount } from '../accounts/account-model';
import { changeAccount } from '../accounts/account-changes';
import { adminAccountEmailFilter, adminAccountPatch } from '@platform/contracts';
import { findAccount } from '../accounts/accounts';
import { emailKeyOf } from '../accounts/email-key';
import { unlockLogins } from '../accounts/login-limits';
import type { Deps } from '../deps';
import { invalidInput, notFound } from './admin-errors';
import { toPage, type Page, type PageRequest } from './paging';

type AccountDeps = Pick<
  Deps,
  'config' | 'redis' | 'accounts' | 'refreshTokens' | 'apiKeys' | 'clients' | 'logoutDeliveries'
>;

/** In email order; `email` keeps the accounts whose (normalised) email starts with it. */
export async function listAccountsPage(
  deps: AccountDeps,
  page: PageRequest,
  email: unknown,
): Promise<Page<PublicAccount>> {
  const filter: Record<string, unknown> = {};
  if (email !== undefined) {
    const parsed = adminAccountEmailFilter.safeParse(email);
    if (!parsed.success) throw invalidInput(parsed.error);
    // Anchored prefix of the unique index's key: an index range, never a scan; the value is escaped, not a pattern.
    filter.emailKey = { $regex: `^${emailKeyOf(parsed.data).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` };
  }
  if (page.after) filter.emailKey = { ...(filter.emailKey as object | undefined), $gt: page.after };
  const rows = await deps.accounts
    .find(filter)
    .sort({ emailKey: 1 })
    .limit(page.limit + 1)
    .lean<AccountDoc[]>();
  return toPage(rows, page.limit, (r) => r.emailKey, toPublicAccount);
}

export async function getAccount(deps: AccountDeps, id: string): Promise<PublicAccount> {
  const doc = await findAccount(deps.accounts, id);
  if (!doc) throw notFound('account');
  return toPublicAccount(doc);
}

/**
 * Roles, status (disable/enable) and plan, through `changeAccount`: a change of roles or status revokes
 * every token the account holds before this returns.
 */
export async function updateAccountRights(
  deps: AccountDeps,
  id: string,
  raw: unknown,
): Promise<{ account: PublicAccount; changes: Record<string, unknown> }> {
  const parsed = adminAccountPatch.safeParse(raw);
  if (!parsed.success) throw invalidInput(parsed.error);
  const changed = await changeAccount(deps, id, parsed.data);
  if (!changed) throw notFound('account');
  return { account: toPublicAccount(changed), changes: parsed.data };
}

/** Ends the account's sign-in lock (the per-account failure counter). */
export async function unlockAccount(deps: AccountDeps, id: string): Promise<{ cleared: number }> {
  const doc = await findAccount(deps.accounts, id);
  if (!doc) throw notFound('account');
  return { cleared: await unlockLogins(deps.redis, deps.config.MONGO_DB, { email: doc.email }) };
}
