import type { ContentDeps } from '../domain/deps';
import type { UserDoc } from '../models';
import { countAll } from '../models/count';

interface UserPage {
  users: UserDoc[];
  total: number;
}

/** REST list: every profile, newest first. */
export async function listUsers(deps: ContentDeps, query: { page: number; limit: number }): Promise<UserPage> {
  const [users, total] = await Promise.all([
    deps.models.users
      .find({})
      .sort({ createdAt: -1, _id: -1 })
      .skip((query.page - 1) * query.limit)
      .limit(query.limit)
      .lean<UserDoc[]>(),
    countAll(deps.models.users, {}),
  ]);
  return { users, total };
}
