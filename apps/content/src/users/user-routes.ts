import { UserId, UserListQuery, UserPut, type RestRole } from '@platform/contracts';
import { ROLES } from '@platform/identity';
import { Router, type Request, type Response } from 'express';
import type { ContentDeps } from '../domain/deps';
import { notFoundError } from '../domain/domain-errors';
import { requireAuthenticated } from '../http/rest-guards';
import { parseBody, parseQuery } from '../http/parse-request';
import { callerOf } from '../identity/identity-middleware';
import type { UserRole } from '../models';
import { ensureProfile, findUser, updateProfile, type ProfileChanges } from './profiles';
import { renderUser } from './rest-user-view';
import { listUsers } from './user-reads';

/**
 * A list of REST roles sets the highest one it names (the others follow from it): ROLES is ordered most
 * privileged first (libs/identity).
 */
const highestRole = (roles: readonly RestRole[]): UserRole | undefined =>
  ROLES.find((role) => roles.includes(`ROLE_${role}`));

/**
 * PUT replaces the profile (UserPut): `name` is required, `avatar` left out becomes null; `email`, `status`
 * and `roles` left out stay as they are (account data held by auth; status and roles for admins only).
 */
function profileChanges(raw: unknown): ProfileChanges {
  const put = parseBody(UserPut, raw);
  const role = put.roles && highestRole(put.roles);
  return {
    name: put.name,
    ...(put.email != null ? { email: put.email } : {}),
    avatar: put.avatar ? put.avatar : null,
    ...(put.status !== undefined ? { status: put.status } : {}),
    ...(role ? { role } : {}),
  };
}

/** A user id names no user when it is not one the contract allows (too long): a 404 like an unknown one. */
async function existingUser(deps: ContentDeps, rawId: unknown) {
  const id = UserId.safeParse(rawId);
  return id.success ? findUser(deps, id.data) : null;
}

export function userRoutes(deps: ContentDeps): Router {
  const router = Router();

  router.get('/users', async (req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'read');
    const { page, limit } = parseQuery(UserListQuery, req.query);
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
    const user = await updateProfile(deps, caller, caller.id, profileChanges(req.body));
    res.json(renderUser(user, 'self'));
  });

  router.get('/users/:id', async (req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'read');
    const user = await existingUser(deps, req.params.id);
    if (!user) throw notFoundError('User');
    res.json(renderUser(user, caller));
  });

  router.put('/users/:id', async (req: Request, res: Response) => {
    const caller = callerOf(res);
    requireAuthenticated(caller, 'write');
    const existing = await existingUser(deps, req.params.id);
    if (!existing) throw notFoundError('User');
    const user = await updateProfile(deps, caller, existing._id, profileChanges(req.body));
    res.json(renderUser(user, caller));
  });

  return router;
}
