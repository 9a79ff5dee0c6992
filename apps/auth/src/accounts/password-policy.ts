import fs from 'node:fs';
import path from 'node:path';

/**
 * What a new password must not be (OWASP ASVS 2.1.7, NIST SP 800-63B 5.1.1.2): one of the most common
 * passwords, or the account's own email address, the email's local part or its name, compared without
 * regard to case. Every path that sets a password (auth's internal account endpoints, which content's
 * REST and GraphQL registration call, and the admin CLI) checks it here, so each answers the same
 * message. Signing in never checks it: an existing password keeps working.
 *
 * The list, `apps/auth/data/common-passwords.txt`, is the 49,233 passwords of zxcvbn's frequency list
 * (from the npm package `@zxcvbn-ts/language-common` 3.0.4, MIT licence, © Dan Wheeler and Dropbox),
 * lower-cased, most common first (docs/security.md "Passwords").
 */
export const PASSWORD_MESSAGES = {
  common: 'is one of the most commonly used passwords; choose another',
  personal: 'must not be your email address or name',
} as const;

// data/ sits beside src/ and dist/, so this path holds for the sources (tests) and the build alike.
const LIST_FILE = path.join(__dirname, '..', '..', 'data', 'common-passwords.txt');

let common: ReadonlySet<string> | undefined;

/** Read once, on first use (about 50,000 lines, a few milliseconds). */
function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(fs.readFileSync(LIST_FILE, 'utf8').split('\n').filter(Boolean));
  return common;
}

interface PasswordOwner {
  email?: string | undefined;
  name?: string | undefined;
}

/** Why `password` may not be used by `owner`, or undefined when it may. */
export function passwordProblem(password: string, owner: PasswordOwner): string | undefined {
  const lower = password.toLowerCase();
  if (commonPasswords().has(lower)) return PASSWORD_MESSAGES.common;
  const email = owner.email?.trim().toLowerCase();
  const personal = [email, email?.split('@')[0], owner.name?.trim().toLowerCase()];
  if (personal.some((value) => value && value === lower.trim())) return PASSWORD_MESSAGES.personal;
  return undefined;
}
