import type { ClientSession } from 'mongoose';
import { buildContentEvent } from '@platform/events';
import type { ContentDeps } from '../domain/deps';
import { DomainError, forbiddenError, notFoundError, validationError } from '../domain/domain-errors';
import { isAdmin, isModerator, type Caller } from '../identity/caller';
import { insertBuilt, type CommentDoc, type PostDoc, type UserDoc } from '../models';
import { commentSnapshot } from '../outbox/snapshots';
import { writeWithEvents } from '../outbox/write-with-events';
import { canSeePost } from '../posts/post-reads';
import { canSeeComment } from './comment-reads';
import { findPost } from '../posts/post-writes';
import { ensureProfile, findUser } from '../users/profiles';

/**
 * Threaded comments. Anyone authenticated who can see a post may comment on it; a reply's
 * parent must be a comment of the same post. The author (or an admin) edits; the author or a
 * moderator/admin deletes (moderation); a comment the caller may not see (comment-reads.ts) is
 * not found, for its own author too. Each write and its event commit in one transaction
 * (outbox/write-with-events.ts).
 */
async function findComment(deps: ContentDeps, id: number, session?: ClientSession): Promise<CommentDoc | null> {
  return deps.models.comments
    .findById(id)
    .session(session ?? null)
    .lean<CommentDoc>();
}

async function visiblePost(
  deps: ContentDeps,
  caller: Caller,
  postId: number,
  session?: ClientSession,
): Promise<PostDoc> {
  const post = await findPost(deps, postId, session);
  if (!post || !canSeePost(caller, post))
    throw new DomainError('not_found', 'Post not found', { postId: 'Post not found.' });
  return post;
}

async function checkParent(
  deps: ContentDeps,
  post: PostDoc,
  parentId: number | null,
  session?: ClientSession,
): Promise<void> {
  if (parentId === null) return;
  const parent = await findComment(deps, parentId, session);
  if (!parent || parent.post !== post._id)
    throw validationError({ parentId: 'Parent comment not found on this post.' });
}

export async function createComment(
  deps: ContentDeps,
  caller: Caller,
  input: { content: string; postId: number; parentId: number | null },
): Promise<CommentDoc> {
  const author = await ensureProfile(deps, caller);
  // Checked before an id is taken, and again in the transaction.
  await checkParent(deps, await visiblePost(deps, caller, input.postId), input.parentId);
  const id = await deps.models.ids.next('comments');
  const comment = await writeWithEvents(deps, async (session) => {
    const post = await visiblePost(deps, caller, input.postId, session);
    await checkParent(deps, post, input.parentId, session);
    // Writes the post's document, so a concurrent deletion of the post and this insert conflict
    // (models/post-model.ts, commentInserts).
    await deps.models.posts.updateOne({ _id: post._id }, { $inc: { commentInserts: 1 } }, { session });
    const now = new Date();
    const doc: CommentDoc = {
      _id: id,
      content: input.content,
      author: author._id,
      post: post._id,
      parent: input.parentId,
      createdAt: now,
      updatedAt: null,
      // Comment ids are never reused, so a comment's revisions start at 1.
      rev: 1,
    };
    await insertBuilt(deps.models.comments, [doc], session);
    const event = buildContentEvent('comment.created', commentSnapshot(doc, author, post), { time: now });
    return { result: doc, events: [{ entityType: 'comments', entityId: id, rev: doc.rev, event }] };
  });
  await deps.invalidate('Comment');
  return comment;
}

/** The comment's author's profile for its events (an author never changes; a deleted one is shown as the caller). */
async function authorOf(deps: ContentDeps, caller: Caller, comment: CommentDoc): Promise<UserDoc> {
  return (await findUser(deps, comment.author)) ?? (await ensureProfile(deps, caller));
}

/** The comment and its post, read in the transaction. */
async function currentComment(
  deps: ContentDeps,
  id: number,
  session: ClientSession,
): Promise<{ comment: CommentDoc; post: PostDoc }> {
  const comment = await findComment(deps, id, session);
  const post = comment && (await findPost(deps, comment.post, session));
  if (!comment || !post) throw notFoundError('Comment');
  return { comment, post };
}

/** The comment if the caller may see it (comment-reads.ts); one they may not see is missing, as for a lookup. */
async function visibleComment(deps: ContentDeps, caller: Caller, id: number): Promise<CommentDoc> {
  const comment = await findComment(deps, id);
  if (!comment || !canSeeComment(caller, await findPost(deps, comment.post))) throw notFoundError('Comment');
  return comment;
}

export async function updateComment(
  deps: ContentDeps,
  caller: Caller,
  id: number,
  content: string,
): Promise<CommentDoc> {
  const before = await visibleComment(deps, caller, id);
  if (before.author !== caller.id && !isAdmin(caller))
    throw forbiddenError('Only the author or an admin may edit this comment');
  const author = await authorOf(deps, caller, before);
  const updated = await writeWithEvents(deps, async (session) => {
    const { comment, post } = await currentComment(deps, id, session);
    const now = new Date();
    const next: CommentDoc = { ...comment, content, updatedAt: now, rev: comment.rev + 1 };
    await deps.models.comments.updateOne(
      { _id: id },
      { $set: { content, updatedAt: now, rev: next.rev } },
      { session },
    );
    const event = buildContentEvent('comment.updated', commentSnapshot(next, author, post), { time: now });
    return { result: next, events: [{ entityType: 'comments', entityId: id, rev: next.rev, event }] };
  });
  await deps.invalidate('Comment');
  return updated;
}

export async function deleteComment(deps: ContentDeps, caller: Caller, id: number): Promise<void> {
  const before = await visibleComment(deps, caller, id);
  if (before.author !== caller.id && !isModerator(caller))
    throw forbiddenError('Only the author or a moderator may delete this comment');
  const author = await authorOf(deps, caller, before);
  await writeWithEvents(deps, async (session) => {
    const { comment, post } = await currentComment(deps, id, session);
    const now = new Date();
    await deps.models.comments.deleteOne({ _id: id }, { session });
    const event = buildContentEvent('comment.deleted', commentSnapshot({ ...comment, updatedAt: now }, author, post), {
      time: now,
    });
    return { result: undefined, events: [{ entityType: 'comments', entityId: id, rev: comment.rev + 1, event }] };
  });
  await deps.invalidate('Comment');
}
