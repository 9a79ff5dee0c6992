import { SETTABLE_USER_STATUSES } from '@platform/events';
import { Router, type Request, type Response } from 'express';
import type { ContentDeps } from '../domain/deps';
import { notFoundError } from '../domain/domain-errors';
import { requireAuthenticated } from '../http/rest-guards';
import {
  isEmail,
  isHttpUrl,
  Problems,
  queryPositiveInt,
  readString,
  rejectUnknown,
  rejectUnknownQuery,
  requireObjectBody,
} from '../http/validate';
import { callerOf } from '../identity/identity-middleware';
import type { UserRole, UserStatus } from '../models';
import { ensureProfile, findUser, updateProfile, type ProfileChanges } from './profiles';
import { renderUser } from './rest-user-view';
import { listUsers } from './user-reads';

const MAX_USER_LIMIT = 100;
const LIST_PARAMS: ReadonlySet<string> = new Set(['page', 'limit']);
const WRITABLE: ReadonlySet<string> = new Set(['name', 'email', 'avatar', 'status', 'roles']);
const READ_ONLY: ReadonlySet<string> = new Set(['id', 'createdAt', 'updatedAt']);
const STATUSES: ReadonlySet<string> = new Set(SETTABLE_USER_STATUSES);
// A Map: looked up with the client's strings, which a plain object would answer for `constructor` too.
const REST_ROLES: ReadonlyMap<string, UserRole> = new Map([
  ['ROLE_ADMIN', 'ADMIN'],
  ['ROLE_MODERATOR', 'MODERATOR'],
  ['ROLE_USER', 'USER'],
]);

/**
 * PUT replaces the profile: `name` is required, `avatar` left out becomes null; `email`,
 * `status` and `roles` left out stay as they are (they are account data held by auth, and
 * status/roles are for admins only).
 */
function parseUserPut(raw: unknown): ProfileChanges {
  const body = requireObjectBody(raw);
  const problems = new Problems();
  rejectUnknown(problems, body, WRITABLE, READ_ONLY);
  const changes: ProfileChanges = {};
  const name = readString(problems, body, 'name', { required: true, max: 100 });
  if (name !== undefined) changes.name = name;
  const email = readString(problems, body, 'email', { required: false, max: 320 });
  if (email !== undefined) {
    if (!isEmail(email)) problems.add('email', 'This value is not a valid email address.');
    else changes.email = email;
  }
  const avatar = readString(problems, body, 'avatar', { required: false, max: 2048 });
  if (avatar !== undefined && avatar !== '' && !isHttpUrl(avatar))
    problems.add('avatar', 'This value is not a valid URL.');
  else changes.avatar = avatar ? avatar : null;
  const status = readString(problems, body, 'status', { required: false, max: 20 });
  if (status !== undefined) {
    if (!STATUSES.has(status)) problems.add('status', 'The value you selected is not a valid choice.');
    else changes.status = status as UserStatus;
  }
  if (body.roles !== undefined) {
    const roles = body.roles;
    if (
      !Array.isArray(roles) ||
      roles.length === 0 ||
      roles.length > 3 ||
      !roles.every((r) => typeof r === 'string' && REST_ROLES.has(r))
    ) {
      problems.add('roles', 'This value should be a list of ROLE_ADMIN, ROLE_MODERATOR, ROLE_USER.');
    } else {
      const ranked = (['ADMIN', 'MODERATOR', 'USER'] as const).find((r) =>
        roles.some((x) => REST_ROLES.get(x as string) === r),
      );
      if (ranked) changes.role = ranked;
    }
  }
  problems.throwIfAny();
  return changes;
}

export function userRoutes(deps: ContentDeps): Router {
  const router = Router();

  router.get('/users', async (req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'read');
    const query = req.query as Record<string, unknown>;
    rejectUnknownQuery(query, LIST_PARAMS);
    const page = queryPositiveInt(query, 'page', 1, 1_000_000);
    const limit = queryPositiveInt(query, 'limit', 10, MAX_USER_LIMIT);
    const { users, total } = await listUsers(deps, { page, limit });
    res.json({
      data: users.map((u) => renderUser(u, caller)),
      meta: { total, page, limit, pages: Math.ceil(total / limit) },
    });
  });

  router.get('/users/me', async (_req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'read');
    res.json(renderUser(await ensureProfile(deps, caller), 'self'));
  });

  /** PUT /users: the caller's own profile. */
  router.put('/users', async (req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'write');
    await ensureProfile(deps, caller);
    const user = await updateProfile(deps, caller, caller.id, parseUserPut(req.body));
    res.json(renderUser(user, 'self'));
  });

  router.get('/users/:id', async (req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'read');
    const id = String(req.params.id);
    const user = id.length <= 200 ? await findUser(deps, id) : null;
    if (!user) throw notFoundError('User');
    res.json(renderUser(user, caller));
  });

  router.put('/users/:id', async (req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'write');
    const id = String(req.params.id);
    if (id.length > 200 || !(await findUser(deps, id))) throw notFoundError('User');
    const user = await updateProfile(deps, caller, id, parseUserPut(req.body));
    res.json(renderUser(user, caller));
  });

  return router;
}
