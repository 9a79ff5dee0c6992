import { z } from 'zod/v4';
import { PLAN_NAMES, ROLES } from '@platform/identity';

/** `disabled`: no sign-in, no token, no API key works (admin API `PATCH /admin/accounts/{id}`). */
export const ACCOUNT_STATUSES = ['active', 'disabled'] as const;

/**
 * An account's fields as every write gives them (auth's internal endpoints, the admin API, the admin CLI).
 * Roles, plans and statuses are closed sets (libs/identity, `ACCOUNT_STATUSES`). Auth checks a new password
 * against its policy besides (common passwords, the account's own email and name).
 */
export const accountFields = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  email: z.string().trim().max(254, 'must be at most 254 characters').email('must be an email address'),
  password: z.string().min(8, 'must be at least 8 characters').max(256, 'must be at most 256 characters'),
  roles: z.array(z.enum(ROLES)).min(1).max(3).optional(),
  plan: z.enum(PLAN_NAMES, { error: `must be one of ${PLAN_NAMES.join(', ')}` }).optional(),
});

/** A change of an account (auth's internal `PATCH /internal/accounts/{id}`, the admin CLI). */
export const accountPatch = z
  .object({
    name: accountFields.shape.name.optional(),
    email: accountFields.shape.email.optional(),
    password: accountFields.shape.password.optional(),
    roles: accountFields.shape.roles,
    status: z.enum(ACCOUNT_STATUSES).optional(),
    plan: accountFields.shape.plan,
  })
  .strict();
export type AccountPatch = z.output<typeof accountPatch>;

/** What an administrator changes on an account (`PATCH /admin/accounts/{id}`; name, email and password are the user's own). */
export const adminAccountPatch = accountPatch
  .pick({ roles: true, status: true, plan: true })
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, 'name at least one of roles, status, plan');
