import DataLoader from 'dataloader';
import type { RequestUserVersion } from '../cache/user-memo';
import type { ContentDeps } from '../domain/deps';
import type { CommentDoc, PostDoc, UserDoc } from '../models';

/**
 * Per-request batching: every `author`, `post`, `parent` and comment count asked for while
 * resolving one level of a query becomes one `$in` query (or one `$group`), so a page of N posts
 * costs the same number of round trips whatever N is.
 */
export interface Loaders {
  user: DataLoader<string, UserDoc | null>;
  post: DataLoader<number, PostDoc | null>;
  comment: DataLoader<number, CommentDoc | null>;
  /** Comments per post (all levels), or replies per comment. */
  commentCount: DataLoader<string, number>;
}

function byId<K, T extends { _id: K }>(keys: readonly K[], docs: T[]): (T | null)[] {
  const map = new Map(docs.map((d) => [d._id, d]));
  return keys.map((k) => map.get(k) ?? null);
}

/** The users with these ids, through the process's user memo when there is one. */
async function loadUsers(
  deps: ContentDeps,
  ids: readonly string[],
  userVersion: RequestUserVersion | undefined,
): Promise<(UserDoc | null)[]> {
  if (!deps.users) return byId(ids, await deps.models.users.find({ _id: { $in: [...ids] } }).lean<UserDoc[]>());
  const found = await deps.users.load(ids, await (userVersion ? userVersion.get() : deps.users.version()));
  return ids.map((id) => found.get(id) ?? null);
}

/**
 * `userVersion`: the request's `User` cache version (user-memo.ts), usually read in the same round trip as
 * its `@cache` look-up, so users come from the memo without a round trip of their own.
 */
export function createLoaders(deps: ContentDeps, userVersion?: RequestUserVersion): Loaders {
  const { models } = deps;
  return {
    user: new DataLoader((ids) => loadUsers(deps, ids, userVersion)),
    post: new DataLoader(async (ids) =>
      byId(ids, await models.posts.find({ _id: { $in: [...ids] } }).lean<PostDoc[]>()),
    ),
    comment: new DataLoader(async (ids) =>
      byId(ids, await models.comments.find({ _id: { $in: [...ids] } }).lean<CommentDoc[]>()),
    ),
    // Keys "post:<id>" or "parent:<id>".
    commentCount: new DataLoader(async (keys) => {
      const postIds = keys.filter((k) => k.startsWith('post:')).map((k) => Number(k.slice(5)));
      const parentIds = keys.filter((k) => k.startsWith('parent:')).map((k) => Number(k.slice(7)));
      const counts = new Map<string, number>();
      const group = async (field: 'post' | 'parent', ids: number[]) => {
        if (ids.length === 0) return;
        const rows = await models.comments.aggregate<{ _id: number; n: number }>([
          { $match: { [field]: { $in: ids } } },
          { $group: { _id: `$${field}`, n: { $sum: 1 } } },
        ]);
        for (const row of rows) counts.set(`${field}:${row._id}`, row.n);
      };
      await Promise.all([group('post', postIds), group('parent', parentIds)]);
      return keys.map((k) => counts.get(k) ?? 0);
    }),
  };
}
