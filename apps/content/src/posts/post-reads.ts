import type { FilterQuery } from 'mongoose';
import type { ContentDeps } from '../domain/deps';
import { isModerator, type Caller } from '../identity/caller';
import type { PostDoc } from '../models';

/** Drafts are visible to their author and to moderators and admins; published posts to all. */
export function canSeePost(caller: Caller, post: PostDoc): boolean {
  return post.status === 'PUBLISHED' || (caller.id !== null && post.author === caller.id) || isModerator(caller);
}

/** The query restriction matching canSeePost, for lists. */
export function visiblePostsFilter(caller: Caller): FilterQuery<PostDoc> {
  if (isModerator(caller)) return { deletedAt: null };
  if (caller.id) return { deletedAt: null, $or: [{ status: 'PUBLISHED' }, { author: caller.id }] };
  return { deletedAt: null, status: 'PUBLISHED' };
}

export interface PublishedPage {
  posts: PostDoc[];
  total: number;
}

/** REST list: published only, optional category/tag slug, newest first. */
export async function listPublished(
  deps: ContentDeps,
  query: { page: number; limit: number; category?: string; tag?: string },
): Promise<PublishedPage> {
  const filter: FilterQuery<PostDoc> = { published: true, deletedAt: null };
  if (query.category !== undefined) filter.category = query.category;
  if (query.tag !== undefined) filter.tags = query.tag;
  const [posts, total] = await Promise.all([
    deps.models.posts
      .find(filter, { outbox: 0 })
      .sort({ createdAt: -1, _id: -1 })
      .skip((query.page - 1) * query.limit)
      .limit(query.limit)
      .lean<PostDoc[]>(),
    deps.models.posts.countDocuments(filter),
  ]);
  return { posts, total };
}

/** Counts a REST read of a post; view counts are statistics, not content changes (no event). */
export async function countView(deps: ContentDeps, id: number): Promise<void> {
  await deps.models.posts.updateOne({ _id: id, deletedAt: null }, { $inc: { viewCount: 1 } });
}
