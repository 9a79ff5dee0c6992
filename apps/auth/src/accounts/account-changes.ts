import { accountSessionsEnded } from '../backchannel-logout/session-clients';
import type { Deps } from '../deps';
import { revokeAccountTokens } from '../tokens/account-revocation';
import type { AccountDoc } from './account-model';
import type { AccountPatch } from '@platform/contracts';
import { changesRights, updateAccount } from './accounts';

/**
 * Applies a patch to an account. A change of its rights (roles, status, password) bumps the account's
 * `securityVersion` in the same write and revokes every token the account holds before this returns,
 * so the change applies on the next request at every service (the admin CLI and content's user
 * updates and moderation both come through here). The same change ends the account's sign-in sessions
 * (pages/session.ts), so the clients that had a session with one are sent a back-channel logout.
 */
export async function changeAccount(
  deps: Pick<Deps, 'config' | 'redis' | 'accounts' | 'refreshTokens' | 'apiKeys' | 'clients' | 'logoutDeliveries'>,
  id: string,
  patch: AccountPatch,
): Promise<AccountDoc | null> {
  const account = await updateAccount(deps.accounts, id, patch);
  if (account && changesRights(patch)) {
    await revokeAccountTokens(deps, account._id, account.securityVersion ?? 0);
    await accountSessionsEnded(deps, account._id);
  }
  return account;
}
