import type { FilterQuery } from 'mongoose';
import type { ContentDeps } from '../domain/deps';
import { isModerator, type Caller } from '../identity/caller';
import type { CommentDoc, PostDoc } from '../models';
import { allOf } from '../models/count';
import { canSeePost, visiblePostsFilter } from '../posts/post-reads';

/**
 * Which comments a caller may see, defined once for every path that reaches a comment (lookups by
 * id, lists, counts, search, the comment mutations): a comment is visible exactly when its post is
 * (posts/post-reads.ts: drafts only to their author and to moderators). Comments of a post that
 * went back to draft disappear with it, for their own authors too, and come back when it is
 * published again.
 */
export function canSeeComment(caller: Caller, post: PostDoc | null): boolean {
  return post !== null && canSeePost(caller, post);
}

/** Ids among `postIds` whose comments the caller may see (one query by `_id`). */
async function visiblePostIds(deps: ContentDeps, caller: Caller, postIds: number[]): Promise<Set<number>> {
  if (postIds.length === 0) return new Set();
  const rows = await deps.models.posts
    .find(allOf<PostDoc>(visiblePostsFilter(caller), { _id: { $in: postIds } }), { _id: 1 })
    .lean<{ _id: number }[]>();
  return new Set(rows.map((p) => p._id));
}

/** The comments of `comments` the caller may see, in their order (lists read before filtering: search). */
export async function keepVisibleComments(
  deps: ContentDeps,
  caller: Caller,
  comments: CommentDoc[],
): Promise<CommentDoc[]> {
  if (isModerator(caller)) return comments;
  const visible = await visiblePostIds(deps, caller, [...new Set(comments.map((c) => c.post))]);
  return comments.filter((c) => visible.has(c.post));
}

/**
 * `filter` narrowed to the comments the caller may see, for pages and their counts across posts
 * (a user's comments). Comments do not carry their post's status, so the posts the matching
 * comments are on are read first (a DISTINCT_SCAN of the `{author, post}` index) and those the
 * caller may not see are excluded: usually none, so the page keeps reading its order's index.
 */
export async function visibleCommentsFilter(
  deps: ContentDeps,
  caller: Caller,
  filter: FilterQuery<CommentDoc>,
): Promise<FilterQuery<CommentDoc>> {
  if (isModerator(caller)) return filter;
  const postIds = (await deps.models.comments.distinct('post', filter)) as number[];
  const visible = await visiblePostIds(deps, caller, postIds);
  const hidden = postIds.filter((id) => !visible.has(id));
  return hidden.length === 0 ? filter : allOf<CommentDoc>(filter, { post: { $nin: hidden } });
}
