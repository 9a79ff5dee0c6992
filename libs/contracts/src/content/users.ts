import { SETTABLE_USER_STATUSES } from '@platform/events';
import { ROLES, type Role } from '@platform/identity';
import { z } from 'zod/v4';
import { choiceOf, emailAddress, httpUrlOrEmpty, instant, readOnlyEcho, text } from './fields';
import { pageNumber, pageOf, pageSize } from './paging';

/** The account roles (libs/identity) in the REST spelling, `ROLE_<role>`. */
export const REST_ROLES = ROLES.map((role) => `ROLE_${role}` as const) as unknown as readonly [
  `ROLE_${Role}`,
  ...`ROLE_${Role}`[],
];
export type RestRole = (typeof REST_ROLES)[number];

/** A user id in a path: the account id (at most 200 characters; a longer one names no user, 404). */
export const UserId = z.string().min(1).max(200).meta({ description: 'The account id.' });

/** `GET /users`: paging only. */
export const UserListQuery = z.strictObject({ page: pageNumber, limit: pageSize });

const ROLE_LIST = `This value should be a list of ${REST_ROLES.join(', ')}.`;
const isRole = (value: unknown): value is RestRole => (REST_ROLES as readonly unknown[]).includes(value);
/**
 * Roles to set: one to three of REST_ROLES. Checked as a whole so one message names the property; the
 * document still lists the roles for each item.
 */
const roleList = z
  .array(z.unknown(), { error: ROLE_LIST })
  .min(1, { error: ROLE_LIST })
  .max(3, { error: ROLE_LIST })
  .refine((roles) => roles.every(isRole), { error: ROLE_LIST, abort: true })
  .meta({ items: { type: 'string', enum: [...REST_ROLES] } })
  // Typed as the roles once checked (the document shows the schema before this step).
  .pipe(z.array(z.enum(REST_ROLES)));

/**
 * PUT replaces the profile: `name` is required, `avatar` left out becomes null; `email`, `status` and `roles`
 * left out stay as they are (account data held by the authorization server; status and roles for admins only).
 */
export const UserPut = z
  .strictObject({
    id: readOnlyEcho,
    createdAt: readOnlyEcho,
    updatedAt: readOnlyEcho,
    name: text(100),
    email: emailAddress(false).nullish(),
    avatar: httpUrlOrEmpty(2048).nullish().meta({ description: 'An http(s) URL; "" or null clears it.' }),
    status: choiceOf(SETTABLE_USER_STATUSES),
    roles: roleList.optional(),
  })
  .meta({
    description:
      'Replaces the profile. `avatar` left out becomes null; `email`, `status` and `roles` left out stay; `status` and `roles` are for admins only (403 otherwise).',
    example: { name: 'Ada L.' },
  });
export type UserPut = z.output<typeof UserPut>;

/** The REST user resource. */
export const User = z
  .strictObject({
    id: z.string().meta({ description: 'The account id at the authorization server.' }),
    name: z.string(),
    email: z
      .string()
      .optional()
      .meta({ description: 'As the account holds it (accounts made at the authorization server were checked there).' }),
    avatar: z.string().meta({ format: 'uri' }).nullable(),
    status: z.enum(SETTABLE_USER_STATUSES),
    roles: z.array(z.enum(REST_ROLES)).min(1),
    createdAt: instant,
    updatedAt: instant.nullable(),
  })
  .meta({ description: '`email` is present only for the user themself and for admins.' });
export type User = z.output<typeof User>;
export const UserPage = pageOf(User);
