import type { Deps } from '../deps';
import type { AccountDoc } from './account-model';
import { checkCredentials } from './accounts';
import { admitLogin, loginSucceeded, type LoginLimits } from './login-limits';

type SignInResult = { ok: true; account: AccountDoc } | { ok: false; retryAfterSeconds?: number };

function loginLimits(config: Deps['config']): LoginLimits {
  return {
    accountMaxFailures: config.LOGIN_ACCOUNT_MAX_FAILURES,
    addressMaxFailures: config.LOGIN_ADDRESS_MAX_FAILURES,
    firstLockMs: config.LOGIN_FIRST_LOCK_SECONDS * 1000,
    maxLockMs: config.LOGIN_MAX_LOCK_SECONDS * 1000,
    failureWindowSeconds: config.LOGIN_FAILURE_WINDOW,
  };
}

/**
 * Every password check of the server goes through here (the sign-in page, content's login): the
 * brute-force limits first (login-limits.ts), then the constant-time credential check. A refusal for
 * a locked counter carries `retryAfterSeconds`; a wrong password and an unknown account look the same.
 */
export async function signIn(
  deps: Deps,
  input: { email: string; password: string; address: string },
): Promise<SignInResult> {
  const limits = loginLimits(deps.config);
  const subject = { email: input.email, address: input.address };
  const admission = await admitLogin(deps.redis, deps.config.MONGO_DB, limits, subject);
  if (!admission.allowed) return { ok: false, retryAfterSeconds: admission.retryAfterSeconds };
  const account = await checkCredentials(deps.accounts, input.email, input.password);
  if (!account) return { ok: false };
  await loginSucceeded(deps.redis, deps.config.MONGO_DB, limits, subject);
  return { ok: true, account };
}
