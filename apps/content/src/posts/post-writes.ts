import type { ClientSession } from 'mongoose';
import { buildContentEvent } from '@platform/events';
import type { ContentDeps } from '../domain/deps';
import { DomainError, forbiddenError, isDuplicateKey, notFoundError } from '../domain/domain-errors';
import { isAdmin, type Caller } from '../identity/caller';
import { insertBuilt, type CommentDoc, type PostDoc, type PostStatus, type UserDoc } from '../models';
import { commentSnapshot, postSnapshot } from '../outbox/snapshots';
import { writeWithEvents, type EntityEvent } from '../outbox/write-with-events';
import { ensureProfile, findUser } from '../users/profiles';
import { slugify } from './slug';

/**
 * Post writes shared by REST and GraphQL. Inputs arrive validated; these functions enforce the
 * rules: author = caller, ownership (author or ADMIN), PUBLISHED ⇔ published, publishedAt on
 * first publication, unique slug, and one event per write, stored with the write in one
 * transaction (outbox/write-with-events.ts).
 */
export interface PostFields {
  title: string;
  content: string;
  excerpt: string | null;
  status: PostStatus;
  category: string | null;
  tags: string[];
}

const EPOCH = new Date(0);

/** Keeps `status` and `published` consistent whichever of the two the interface set. */
export function reconcileStatus(
  current: PostStatus | undefined,
  change: { status?: PostStatus; published?: boolean },
): PostStatus {
  if (change.status !== undefined) return change.status;
  if (change.published === true) return 'PUBLISHED';
  if (change.published === false) return current === 'PUBLISHED' || current === undefined ? 'DRAFT' : current;
  return current ?? 'DRAFT';
}

/** Categories and tags are created on first use, in the transaction of the post that uses them. */
async function rememberTaxonomy(
  deps: ContentDeps,
  session: ClientSession,
  category: string | null,
  tags: string[],
  names: Map<string, string>,
): Promise<void> {
  const upsert = { upsert: true, session };
  if (category)
    await deps.models.categories.updateOne(
      { _id: category },
      { $setOnInsert: { name: names.get(category) ?? category } },
      upsert,
    );
  for (const tag of tags)
    await deps.models.tags.updateOne({ _id: tag }, { $setOnInsert: { name: names.get(tag) ?? tag } }, upsert);
}

/** `userVersion`: the request's `User` version, when it asked for it already (users/profiles.ts `ensureProfile`). */
export async function createPost(
  deps: ContentDeps,
  caller: Caller,
  fields: PostFields,
  names = new Map<string, string>(),
  userVersion?: Promise<string | null>,
): Promise<{ post: PostDoc; author: UserDoc }> {
  const author = await ensureProfile(deps, caller, userVersion);
  const now = new Date();
  const published = fields.status === 'PUBLISHED';
  const base = slugify(fields.title);
  // Ids come from this process's block of the counter (models/counters.ts), outside the transaction
  // (one counter document in every creating transaction would make them all conflict). The first
  // attempt takes the title's slug; when another post has it, the unique index refuses the insert,
  // the transaction aborts, and the next attempt takes the id as suffix, with the same id (the
  // aborted one was never written). Reading first whether the slug is taken would cost every create
  // a round trip to spare the rare duplicate one.
  let id = await deps.models.ids.next('posts');
  for (let attempt = 0; attempt < 8; attempt++) {
    const slug = attempt === 0 ? base : `${base}-${id}`;
    try {
      const post = await writeWithEvents(deps, async (session) => {
        await rememberTaxonomy(deps, session, fields.category, fields.tags, names);
        const doc: PostDoc = {
          _id: id,
          ...fields,
          titleLower: fields.title.toLowerCase(),
          slug,
          published,
          publishedAt: published ? now : null,
          publishedAtSort: published ? now : EPOCH,
          viewCount: 0,
          author: author._id,
          createdAt: now,
          updatedAt: null,
          // Post ids are never reused, so a post's revisions start at 1.
          rev: 1,
          commentInserts: 0,
        };
        await insertBuilt(deps.models.posts, [doc], session);
        const event = buildContentEvent('post.created', postSnapshot(doc, author), { time: now });
        return { result: doc, events: [{ entityType: 'posts', entityId: id, rev: doc.rev, event }] };
      });
      await deps.invalidate('Post');
      return { post, author };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      // `${base}-${id}` taken too (another post's title ends so): a new id, so a new suffix.
      if (attempt > 0) id = await deps.models.ids.next('posts');
    }
  }
  throw new DomainError('conflict', 'Could not allocate a unique slug');
}

export async function findPost(deps: ContentDeps, id: number, session?: ClientSession): Promise<PostDoc | null> {
  return deps.models.posts
    .findById(id)
    .session(session ?? null)
    .lean<PostDoc>();
}

function assertOwner(caller: Caller, post: PostDoc): void {
  if (!caller.id) throw new DomainError('unauthenticated', 'Authentication required');
  if (post.author !== caller.id && !isAdmin(caller))
    throw forbiddenError('Only the author or an admin may change this post');
}

/**
 * The post as the caller may change it, and its author's profile for the event (a post's author
 * never changes, so this is read once, before the transaction; an author whose profile was
 * deleted is shown as the caller, who can only be an admin or the author themself).
 */
async function ownedPost(deps: ContentDeps, caller: Caller, id: number): Promise<UserDoc> {
  const post = await findPost(deps, id);
  if (!post) throw notFoundError('Post');
  assertOwner(caller, post);
  return (await findUser(deps, post.author)) ?? (await ensureProfile(deps, caller));
}

/** Applies `changes` (already merged for PATCH, or complete for PUT) to a post the caller owns. */
export async function updatePost(
  deps: ContentDeps,
  caller: Caller,
  id: number,
  changes: Partial<PostFields> & { published?: boolean },
  names = new Map<string, string>(),
): Promise<{ post: PostDoc; author: UserDoc }> {
  const author = await ownedPost(deps, caller, id);
  const { published: publishedChange, ...fields } = changes;
  const post = await writeWithEvents(deps, async (session) => {
    // Read again in the transaction: a concurrent write of this post makes one of the two
    // conflict and run again on the other's result, so no change is lost and revisions follow
    // commit order.
    const current = await findPost(deps, id, session);
    if (!current) throw notFoundError('Post');
    const status = reconcileStatus(current.status, { status: fields.status, published: publishedChange });
    const published = status === 'PUBLISHED';
    const now = new Date();
    const publishedAt = current.publishedAt ?? (published ? now : null);
    const next: PostDoc = {
      ...current,
      ...fields,
      ...(fields.title !== undefined ? { titleLower: fields.title.toLowerCase() } : {}),
      status,
      published,
      publishedAt,
      publishedAtSort: publishedAt ?? EPOCH,
      updatedAt: now,
      rev: current.rev + 1,
    };
    await rememberTaxonomy(deps, session, fields.category ?? null, fields.tags ?? [], names);
    // viewCount and commentInserts are left out: other writes increment them.
    const { _id: _i, viewCount: _v, commentInserts: _c, ...set } = next;
    await deps.models.posts.updateOne({ _id: id }, { $set: set }, { session });
    const event = buildContentEvent('post.updated', postSnapshot(next, author), { time: now });
    return { result: next, events: [{ entityType: 'posts', entityId: id, rev: next.rev, event }] };
  });
  await deps.invalidate('Post');
  return { post, author };
}

/** Deletes a post and its comments, each with its own `*.deleted` event, in one transaction. */
export async function deletePost(deps: ContentDeps, caller: Caller, id: number): Promise<void> {
  const author = await ownedPost(deps, caller, id);
  const deletedComments = await writeWithEvents(deps, async (session) => {
    const current = await findPost(deps, id, session);
    if (!current) throw notFoundError('Post');
    const now = new Date();
    // A comment created concurrently increments the post's commentInserts, so it conflicts with
    // the deletion below: it is either in this list or fails (its post is gone).
    const comments = await deps.models.comments.find({ post: id }).session(session).lean<CommentDoc[]>();
    const authorIds = [...new Set(comments.map((c) => c.author))];
    const commentAuthors = new Map(
      (
        await deps.models.users
          .find({ _id: { $in: authorIds } })
          .session(session)
          .lean<UserDoc[]>()
      ).map((u) => [u._id, u]),
    );
    await deps.models.posts.deleteOne({ _id: id }, { session });
    if (comments.length > 0)
      await deps.models.comments.deleteMany({ _id: { $in: comments.map((c) => c._id) } }, { session });
    const events: EntityEvent[] = [
      {
        entityType: 'posts',
        entityId: id,
        rev: current.rev + 1,
        event: buildContentEvent('post.deleted', postSnapshot({ ...current, updatedAt: now }, author), { time: now }),
      },
      ...comments.map((comment): EntityEvent => ({
        entityType: 'comments',
        entityId: comment._id,
        rev: comment.rev + 1,
        event: buildContentEvent(
          'comment.deleted',
          commentSnapshot({ ...comment, updatedAt: now }, commentAuthors.get(comment.author) ?? author, current),
          { time: now },
        ),
      })),
    ];
    return { result: comments.length, events };
  });
  await deps.invalidate('Post');
  if (deletedComments > 0) await deps.invalidate('Comment');
}
