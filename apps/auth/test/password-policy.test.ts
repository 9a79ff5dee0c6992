import fs from 'node:fs';
import path from 'node:path';
import { PASSWORD_MESSAGES, passwordProblem } from '../src/accounts/password-policy';

describe('password policy (ASVS 2.1.7): not a common password, not the email or name', () => {
  it('ships tens of thousands of common passwords, one per line, lower-cased', () => {
    const lines = fs
      .readFileSync(path.join(__dirname, '..', 'data', 'common-passwords.txt'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(lines.length).toBeGreaterThan(40_000);
    expect(lines.slice(0, 3)).toEqual(['123456', 'password', '12345678']);
    expect(lines.every((line) => line === line.toLowerCase())).toBe(true);
  });

  it('refuses a common password whatever its case', () => {
    for (const password of ['12345678', 'password', 'Password1', 'QWERTYUIOP', 'iloveyou', 'sunshine']) {
      expect(passwordProblem(password, { email: 'a@example.org', name: 'A' })).toBe(PASSWORD_MESSAGES.common);
    }
  });

  it('refuses the email, its local part or the name, ignoring case and surrounding blanks', () => {
    const owner = { email: 'Margaret.Hamilton@Example.org', name: 'Margaret Hamilton 1936' };
    for (const password of [
      'margaret.hamilton@example.org',
      'MARGARET.HAMILTON',
      'margaret hamilton 1936',
      ' Margaret.Hamilton ',
    ]) {
      expect(passwordProblem(password, owner)).toBe(PASSWORD_MESSAGES.personal);
    }
  });

  it('accepts anything else, and judges an owner without email or name by the list alone', () => {
    expect(passwordProblem('correct horse battery staple', { email: 'a@example.org', name: 'A' })).toBeUndefined();
    expect(passwordProblem('margaret.hamilton 2', { email: 'margaret.hamilton@example.org' })).toBeUndefined();
    expect(passwordProblem('an uncommon one 9', {})).toBeUndefined();
  });
});
