import type { FilterQuery } from 'mongoose';
import type { ContentDeps } from '../domain/deps';
import { isModerator, type Caller } from '../identity/caller';
import type { PostDoc, PostStatus } from '../models';
import { allOf, countAll } from '../models/count';

/** Drafts are visible to their author and to moderators and admins; published posts to all. */
export function canSeePost(caller: Caller, post: PostDoc): boolean {
  return post.status === 'PUBLISHED' || (caller.id !== null && post.author === caller.id) || isModerator(caller);
}

/** The query restriction matching canSeePost, for lists. */
export function visiblePostsFilter(caller: Caller): FilterQuery<PostDoc> {
  return visiblePosts(caller, {})!;
}

/**
 * The posts the caller may see, of one author and/or one status if given, as the simplest
 * equivalent filter, so that one index (equality fields, then the order) serves the list: a
 * caller sees every post of their own and published ones of others (moderators and admins see
 * everything). Null when the caller can see none (another author's drafts), so no query is sent.
 */
export function visiblePosts(
  caller: Caller,
  only: { author?: string; status?: PostStatus | null },
): FilterQuery<PostDoc> | null {
  const { author, status } = only;
  const byAuthor: FilterQuery<PostDoc> = author === undefined ? {} : { author };
  if (isModerator(caller) || (author !== undefined && author === caller.id))
    return allOf<PostDoc>(byAuthor, status ? { status } : {});
  if (status && status !== 'PUBLISHED') return author === undefined && caller.id ? { author: caller.id, status } : null;
  if (status || author !== undefined || !caller.id) return allOf<PostDoc>(byAuthor, { status: 'PUBLISHED' });
  return { $or: [{ status: 'PUBLISHED' }, { author: caller.id }] };
}

interface PublishedPage {
  posts: PostDoc[];
  total: number;
}

/** REST list: published only, optional category/tag slug, newest first. */
export async function listPublished(
  deps: ContentDeps,
  query: { page: number; limit: number; category?: string; tag?: string },
): Promise<PublishedPage> {
  const filter: FilterQuery<PostDoc> = { published: true };
  if (query.category !== undefined) filter.category = query.category;
  if (query.tag !== undefined) filter.tags = query.tag;
  const [posts, total] = await Promise.all([
    deps.models.posts
      .find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .skip((query.page - 1) * query.limit)
      .limit(query.limit)
      .lean<PostDoc[]>(),
    countAll(deps.models.posts, filter),
  ]);
  return { posts, total };
}

/** Counts a REST read of a post; view counts are statistics, not content changes (no event). */
export async function countView(deps: ContentDeps, id: number): Promise<void> {
  await deps.models.posts.updateOne({ _id: id }, { $inc: { viewCount: 1 } });
}
