import { randomUUID } from 'node:crypto';
import type { Model } from 'mongoose';
import type { z } from 'zod/v4';
import { accountFields, type AccountPatch } from '@platform/contracts';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../crypto/secrets';
import type { AccountDoc } from './account-model';
import { emailKeyOf } from './email-key';
import { passwordProblem } from './password-policy';

/** A new account; the password is checked against the common list and the account's own email and name. */
export const newAccountInput = accountFields.superRefine((input, ctx) => {
  const problem = passwordProblem(input.password, input);
  if (problem) ctx.addIssue({ code: 'custom', path: ['password'], message: problem });
});
type NewAccountInput = z.output<typeof newAccountInput>;

/** A new password that `passwordProblem` refuses; `message` is the field's message. */
export class PasswordRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PasswordRejectedError';
  }
}

export class EmailTakenError extends Error {
  constructor() {
    super('email already registered');
    this.name = 'EmailTakenError';
  }
}

/** MongoDB's duplicate-key error (code 11000): of the unique indexes (`_id`, a random UUID, and `emailKey`) only `emailKey` can clash. */
function isDuplicateKey(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if ((err as { code?: unknown }).code === 11000) return true;
  return err instanceof Error && /E11000|duplicate key/i.test(err.message);
}

export async function createAccount(model: Model<AccountDoc>, input: NewAccountInput): Promise<AccountDoc> {
  const passwordHash = await hashPassword(input.password);
  try {
    const doc = await model.create({
      _id: randomUUID(),
      name: input.name,
      email: input.email.trim(),
      emailKey: emailKeyOf(input.email),
      passwordHash,
      roles: input.roles ?? ['USER'],
      status: 'active',
      plan: input.plan ?? 'free',
    });
    return doc.toObject();
  } catch (err) {
    if (isDuplicateKey(err)) throw new EmailTakenError();
    throw err;
  }
}

export async function findAccount(model: Model<AccountDoc>, id: string): Promise<AccountDoc | null> {
  return model.findById(id).lean<AccountDoc>();
}

export async function findAccountByEmail(model: Model<AccountDoc>, email: string): Promise<AccountDoc | null> {
  return model.findOne({ emailKey: emailKeyOf(email) }).lean<AccountDoc>();
}

/** Whether a patch changes what the account may do (or who can sign in as it): its tokens must go. */
export function changesRights(patch: AccountPatch): boolean {
  return patch.roles !== undefined || patch.status !== undefined || patch.password !== undefined;
}

/** Applies a patch; a change of rights bumps `securityVersion` in the same write (accounts/account-changes.ts revokes). */
export async function updateAccount(
  model: Model<AccountDoc>,
  id: string,
  patch: AccountPatch,
): Promise<AccountDoc | null> {
  const set: Partial<AccountDoc> = {};
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.email !== undefined) {
    set.email = patch.email.trim();
    set.emailKey = emailKeyOf(patch.email);
  }
  if (patch.password !== undefined) {
    const current = await model.findById(id, { email: 1, name: 1 }).lean<Pick<AccountDoc, 'email' | 'name'>>();
    if (!current) return null;
    // Neither the new email and name nor the stored ones (a patch may change one without the other).
    const problem = passwordProblem(patch.password, patch) ?? passwordProblem(patch.password, current);
    if (problem) throw new PasswordRejectedError(problem);
    set.passwordHash = await hashPassword(patch.password);
  }
  if (patch.roles !== undefined) set.roles = patch.roles;
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.plan !== undefined) set.plan = patch.plan;
  try {
    const update = changesRights(patch) ? { $set: set, $inc: { securityVersion: 1 } } : { $set: set };
    return await model.findOneAndUpdate({ _id: id }, update, { new: true }).lean<AccountDoc>();
  } catch (err) {
    if (isDuplicateKey(err)) throw new EmailTakenError();
    throw err;
  }
}

/** The account when email and password match an active account; null otherwise (same timing either way). */
export async function checkCredentials(
  model: Model<AccountDoc>,
  email: string,
  password: string,
): Promise<AccountDoc | null> {
  if (email.length > 254 || password.length > 256) return null;
  const account = await findAccountByEmail(model, email);
  const ok = await verifyPassword(password, account?.passwordHash ?? (await dummyPasswordHash()));
  if (!account || !ok || account.status !== 'active') return null;
  return account;
}
