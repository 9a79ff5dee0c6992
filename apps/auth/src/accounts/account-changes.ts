import type { Deps } from '../deps';
import { revokeAccountTokens } from '../tokens/account-revocation';
import type { AccountDoc } from './account-model';
import { updateAccount, type AccountPatch } from './accounts';

/** Whether a patch changes what the account may do (or who can sign in as it), so that the tokens it holds must go. */
export function changesRights(patch: AccountPatch): boolean {
  return patch.roles !== undefined || patch.status !== undefined || patch.password !== undefined;
}

/**
 * Applies a patch to an account. A change of its rights (roles, status, password) bumps the account's
 * `securityVersion` and revokes every token the account holds before this returns, so the change
 * applies on the next request at every service. The bump follows the write: a token issued from the
 * account as read in between carries the new rights and is refused as stale anyway (the client asks
 * again), never the other way round.
 */
export async function changeAccount(deps: Pick<Deps, 'config' | 'redis' | 'accounts' | 'refreshTokens' | 'apiKeys'>, id: string, patch: AccountPatch): Promise<AccountDoc | null> {
  const account = await updateAccount(deps.accounts, id, patch);
  if (!account || !changesRights(patch)) return account;
  const bumped = await deps.accounts.findOneAndUpdate({ _id: account._id }, { $inc: { securityVersion: 1 } }, { new: true }).lean<AccountDoc>();
  const current = bumped ?? account;
  await revokeAccountTokens(deps, current._id, current.securityVersion ?? 0);
  return current;
}
