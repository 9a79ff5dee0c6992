import { accountPatch } from '@platform/contracts';
import { changeAccount } from '../../accounts/account-changes';
import { toPublicAccount, type AccountDoc } from '../../accounts/account-model';
import { createAccount, findAccount, findAccountByEmail, newAccountInput } from '../../accounts/accounts';
import { unlockLogins } from '../../accounts/login-limits';
import { getAccount, listAccountsPage } from '../../admin/admin-accounts';
import { parsePage } from '../../admin/paging';
import { cliCommand, type CliContext } from '../cli-command';

/** `--account`: an account named by its id or its email. */
export const accountFlag = { type: 'string', value: '<id or email>' } as const;
const roles = { type: 'string', value: 'ADMIN|MODERATOR|USER', multiple: true } as const;
const plan = { type: 'string', value: 'free|starter|creator|pro|enterprise' } as const;

/** The account an `--account` value names (an email has an `@`, an id never does). */
export function accountOf(ctx: CliContext, ref: string): Promise<AccountDoc | null> {
  return ref.includes('@') ? findAccountByEmail(ctx.deps.accounts, ref) : findAccount(ctx.deps.accounts, ref);
}

export const createAccountCommand = cliCommand({
  name: 'accounts:create',
  summary:
    'the password: typed at a prompt without echo, or piped with --password-stdin; never an argument (the process table shows it)',
  audit: 'account.create',
  flags: {
    email: { type: 'string', value: 'E', required: true },
    name: { type: 'string', value: 'N', required: true },
    password: { type: 'secret' },
    role: roles,
    plan,
  },
  async run(values, { deps }) {
    // The internal endpoint's schema: roles and plan from their lists, the password policy.
    const parsed = newAccountInput.safeParse({
      email: values.email,
      name: values.name,
      password: values.password,
      ...(values.role ? { roles: values.role } : {}),
      ...(values.plan ? { plan: values.plan } : {}),
    });
    if (!parsed.success)
      throw new Error(
        parsed.error.issues
          .map((i) => `--${i.path[0] === 'roles' ? 'role' : String(i.path[0])}: ${i.message}`)
          .join('; '),
      );
    const account = toPublicAccount(await createAccount(deps.accounts, parsed.data));
    const { id, createdAt: _createdAt, ...changes } = account;
    return { output: account, audit: { target: { type: 'account', id }, changes } };
  },
});

export const listAccountsCommand = cliCommand({
  name: 'accounts:list',
  summary: 'the first 1,000 accounts, oldest first, without password material',
  flags: {},
  async run(_values, { deps }) {
    return { output: (await deps.accounts.find({}).sort({ createdAt: 1 }).limit(1000).lean()).map(toPublicAccount) };
  },
});

export const updateAccountCommand = cliCommand({
  name: 'accounts:update',
  summary: 'a role or status change revokes every token the account holds at once',
  audit: 'account.update',
  flags: {
    account: { ...accountFlag, required: true },
    role: roles,
    status: { type: 'string', value: 'active|disabled' },
    plan,
  },
  async run(values, ctx) {
    const account = await accountOf(ctx, values.account);
    if (!account) throw new Error('--account must name an existing account (id or email)');
    const patch = accountPatch.parse({
      ...(values.role ? { roles: values.role } : {}),
      ...(values.status ? { status: values.status } : {}),
      ...(values.plan ? { plan: values.plan } : {}),
    });
    // The same path as PATCH /admin/accounts/{id}: a change of rights revokes the account's tokens.
    const changed = await changeAccount(ctx.deps, account._id, patch);
    if (!changed) throw new Error('no such account');
    const { password: _password, ...changes } = patch;
    return { output: toPublicAccount(changed), audit: { target: { type: 'account', id: account._id }, changes } };
  },
});

export const getAccountCommand = cliCommand({
  name: 'accounts:get',
  summary: 'one account, as GET /admin/accounts/{id}',
  flags: { account: { ...accountFlag, required: true } },
  async run(values, ctx) {
    if (!values.account.includes('@')) return { output: await getAccount(ctx.deps, values.account) };
    const account = await accountOf(ctx, values.account);
    if (!account) throw new Error('no such account');
    return { output: toPublicAccount(account) };
  },
});

export const findAccountsCommand = cliCommand({
  name: 'accounts:find',
  summary: 'one page, as GET /admin/accounts',
  flags: {
    email: { type: 'string', value: 'PREFIX' },
    limit: { type: 'string', value: 'N' },
    cursor: { type: 'string', value: 'C' },
  },
  async run(values, { deps }) {
    return {
      output: await listAccountsPage(deps, parsePage({ limit: values.limit, cursor: values.cursor }), values.email),
    };
  },
});

export const unlockLoginsCommand = cliCommand({
  name: 'logins:unlock',
  summary: 'forget sign-in failures of an email or an address; ends a lock',
  audit: 'logins.unlock',
  flags: { email: { type: 'string', value: 'E' }, address: { type: 'string', value: 'A' } },
  async run(values, { config, deps }) {
    if (values.email === undefined && values.address === undefined) throw new Error('--email or --address is required');
    const who = {
      ...(values.email !== undefined ? { email: values.email } : {}),
      ...(values.address !== undefined ? { address: values.address } : {}),
    };
    const cleared = await unlockLogins(deps.redis, config.MONGO_DB, who);
    return {
      output: { cleared },
      audit: {
        target: { type: 'sign_in_limit', id: values.email ?? values.address ?? '' },
        changes: { ...who, cleared },
      },
    };
  },
});
