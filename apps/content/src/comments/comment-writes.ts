import { buildContentEvent } from '@platform/events';
import type { ContentDeps } from '../domain/deps';
import { DomainError, forbiddenError, isDuplicateKey, notFoundError, validationError } from '../domain/errors';
import { isAdmin, isModerator, type Caller } from '../identity/caller';
import { nextId, type CommentDoc, type PostDoc } from '../models';
import { commentSnapshot } from '../outbox/snapshots';
import { writeWithEvent } from '../outbox/write-with-event';
import { canSeePost } from '../posts/post-reads';
import { findPost, markCommentDeleted } from '../posts/post-writes';
import { ensureProfile, findUser } from '../users/profiles';

/**
 * Threaded comments. Anyone authenticated who can see a post may comment on it; a reply's
 * parent must be a comment of the same post. The author (or an admin) edits; the author or a
 * moderator/admin deletes (moderation).
 */
export async function findComment(deps: ContentDeps, id: number): Promise<CommentDoc | null> {
  return deps.models.comments.findOne({ _id: id, deletedAt: null }).lean<CommentDoc>();
}

async function visiblePost(deps: ContentDeps, caller: Caller, postId: number): Promise<PostDoc> {
  const post = await findPost(deps, postId);
  if (!post || !canSeePost(caller, post)) throw new DomainError('not_found', 'Post not found', { postId: 'Post not found.' });
  return post;
}

export async function createComment(
  deps: ContentDeps,
  caller: Caller,
  input: { content: string; postId: number; parentId: number | null },
): Promise<CommentDoc> {
  const author = await ensureProfile(deps, caller);
  const post = await visiblePost(deps, caller, input.postId);
  if (input.parentId !== null) {
    const parent = await findComment(deps, input.parentId);
    if (!parent || parent.post !== post._id) throw validationError({ parentId: 'Parent comment not found on this post.' });
  }
  const now = new Date();
  for (let attempt = 0; attempt < 8; attempt++) {
    const id = await nextId(deps.models.counters, 'comments');
    const doc: CommentDoc = {
      _id: id,
      content: input.content,
      author: author._id,
      post: post._id,
      parent: input.parentId,
      createdAt: now,
      updatedAt: null,
      eventIds: [],
      deletedAt: null,
      rev: 1,
    };
    const event = buildContentEvent('comment.created', commentSnapshot(doc, author, post), { time: now });
    doc.eventIds = [event.id];
    try {
      await writeWithEvent(deps.models.outbox, 'comments', event, () => deps.models.comments.create(doc));
      await deps.invalidate('Comment');
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }
  throw new DomainError('conflict', 'Could not allocate a comment id');
}

export async function updateComment(deps: ContentDeps, caller: Caller, id: number, content: string): Promise<CommentDoc> {
  const current = await findComment(deps, id);
  if (!current) throw notFoundError('Comment');
  if (current.author !== caller.id && !isAdmin(caller)) throw forbiddenError('Only the author or an admin may edit this comment');
  const post = await findPost(deps, current.post);
  if (!post) throw notFoundError('Comment');
  const author = (await findUser(deps, current.author)) ?? (await ensureProfile(deps, caller));
  const now = new Date();
  const next: CommentDoc = { ...current, content, updatedAt: now };
  const event = buildContentEvent('comment.updated', commentSnapshot(next, author, post), { time: now });
  const applied = await writeWithEvent(deps.models.outbox, 'comments', event, async (eventIds) => {
    const res = await deps.models.comments.updateOne(
      { _id: id, rev: current.rev, deletedAt: null },
      { $set: { content, updatedAt: now, eventIds, rev: current.rev + 1 } },
    );
    return res.matchedCount === 1;
  }, current);
  if (!applied) throw new DomainError('conflict', 'The comment changed meanwhile; retry');
  await deps.invalidate('Comment');
  return { ...next, rev: current.rev + 1 };
}

export async function deleteComment(deps: ContentDeps, caller: Caller, id: number): Promise<void> {
  const current = await findComment(deps, id);
  if (!current) throw notFoundError('Comment');
  if (current.author !== caller.id && !isModerator(caller)) throw forbiddenError('Only the author or a moderator may delete this comment');
  const post = await findPost(deps, current.post);
  if (!post) throw notFoundError('Comment');
  const author = (await findUser(deps, current.author)) ?? (await ensureProfile(deps, caller));
  if (!(await markCommentDeleted(deps, current, author, post, new Date(), 'comment.deleted'))) {
    throw new DomainError('conflict', 'The comment changed meanwhile; retry');
  }
  await deps.invalidate('Comment');
}
