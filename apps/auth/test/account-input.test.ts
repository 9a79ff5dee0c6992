import { PLAN_NAMES, ROLES } from '@platform/identity';
import { accountPatch, adminAccountPatch } from '@platform/contracts';
import { newAccountInput } from '../src/accounts/accounts';
import { PASSWORD_MESSAGES } from '../src/accounts/password-policy';

const account = { name: 'Ada', email: 'ada@example.org', password: 'an uncommon one 9' };
const fieldsOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  Object.fromEntries((result.error?.issues ?? []).map((i) => [i.path.map(String).join('.'), i.message]));

describe('account input: plans, roles and statuses are closed sets', () => {
  it('accepts every plan and role of the lists', () => {
    for (const plan of PLAN_NAMES) expect(newAccountInput.safeParse({ ...account, plan }).success).toBe(true);
    expect(newAccountInput.safeParse({ ...account, roles: [...ROLES] }).success).toBe(true);
  });

  it.each(['constructor', '__proto__', 'toString', 'platinum', 'Free', ''])(
    'refuses the plan %j on every schema that writes one',
    (plan) => {
      expect(fieldsOf(newAccountInput.safeParse({ ...account, plan }))).toEqual({
        plan: expect.stringContaining('must be one of free, starter'),
      });
      expect(accountPatch.safeParse({ plan }).success).toBe(false);
      expect(adminAccountPatch.safeParse({ plan }).success).toBe(false);
    },
  );

  it('refuses roles and statuses outside their lists', () => {
    expect(newAccountInput.safeParse({ ...account, roles: ['constructor'] }).success).toBe(false);
    expect(adminAccountPatch.safeParse({ roles: ['ROOT'] }).success).toBe(false);
    expect(adminAccountPatch.safeParse({ status: 'constructor' }).success).toBe(false);
    expect(adminAccountPatch.safeParse({ status: 'disabled' }).success).toBe(true);
  });
});

describe('account input: the password policy', () => {
  it('refuses a common password, or one equal to the email, its local part or the name, on the password field', () => {
    expect(fieldsOf(newAccountInput.safeParse({ ...account, password: '12345678' }))).toEqual({
      password: PASSWORD_MESSAGES.common,
    });
    expect(fieldsOf(newAccountInput.safeParse({ ...account, password: 'ADA@example.org' }))).toEqual({
      password: PASSWORD_MESSAGES.personal,
    });
    expect(fieldsOf(newAccountInput.safeParse({ ...account, name: 'Ada Lovelace', password: 'ada lovelace' }))).toEqual(
      { password: PASSWORD_MESSAGES.personal },
    );
    expect(
      fieldsOf(newAccountInput.safeParse({ ...account, email: 'lovelace1815@example.org', password: 'Lovelace1815' })),
    ).toEqual({ password: PASSWORD_MESSAGES.personal });
  });
});
