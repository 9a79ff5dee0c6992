import { buildContentEvent, type ContentEventType } from '@platform/events';
import type { ContentDeps } from '../domain/deps';
import { DomainError, forbiddenError, isDuplicateKey, notFoundError } from '../domain/errors';
import { isAdmin, type Caller } from '../identity/caller';
import { nextId, type CommentDoc, type PostDoc, type PostStatus, type UserDoc } from '../models';
import { commentSnapshot, postSnapshot } from '../outbox/snapshots';
import { ensureProfile, findUser } from '../users/profiles';
import { slugify } from './slug';
import { writeWithEvent } from '../outbox/write-with-event';

/**
 * Post writes shared by REST and GraphQL. Inputs arrive validated; these functions enforce the
 * rules: author = caller, ownership (author or ADMIN), PUBLISHED ⇔ published, publishedAt on
 * first publication, unique slug, and one event per write through the outbox.
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
export function reconcileStatus(current: PostStatus | undefined, change: { status?: PostStatus; published?: boolean }): PostStatus {
  if (change.status !== undefined) return change.status;
  if (change.published === true) return 'PUBLISHED';
  if (change.published === false) return current === 'PUBLISHED' || current === undefined ? 'DRAFT' : current;
  return current ?? 'DRAFT';
}

async function rememberTaxonomy(deps: ContentDeps, category: string | null, tags: string[], names: Map<string, string>): Promise<void> {
  const ops: Promise<unknown>[] = [];
  if (category) ops.push(deps.models.categories.updateOne({ _id: category }, { $setOnInsert: { name: names.get(category) ?? category } }, { upsert: true }));
  for (const tag of tags) ops.push(deps.models.tags.updateOne({ _id: tag }, { $setOnInsert: { name: names.get(tag) ?? tag } }, { upsert: true }));
  // Two posts introducing the same tag at once race on the upsert; the loser's duplicate key is harmless.
  await Promise.all(ops.map((p) => p.catch((err: unknown) => (isDuplicateKey(err) ? undefined : Promise.reject(err)))));
}

export async function createPost(deps: ContentDeps, caller: Caller, fields: PostFields, names = new Map<string, string>()): Promise<{ post: PostDoc; author: UserDoc }> {
  const author = await ensureProfile(deps, caller);
  await rememberTaxonomy(deps, fields.category, fields.tags, names);
  const now = new Date();
  const published = fields.status === 'PUBLISHED';
  const base = slugify(fields.title);
  // The id counter's $inc may hand one value out twice on servers without atomic updates; a
  // duplicate _id is retried with a fresh id, a duplicate slug with the id as suffix.
  for (let attempt = 0; attempt < 8; attempt++) {
    const id = await nextId(deps.models.counters, 'posts');
    const slug = (await deps.models.posts.exists({ slug: base })) ? `${base}-${id}` : base;
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
      eventIds: [],
      deletedAt: null,
      rev: 1,
    };
    const event = buildContentEvent('post.created', postSnapshot(doc, author), { time: now });
    doc.eventIds = [event.id];
    try {
      await writeWithEvent(deps.models.outbox, 'posts', event, () => deps.models.posts.create(doc));
      await deps.invalidate('Post');
      return { post: doc, author };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }
  throw new DomainError('conflict', 'Could not allocate a unique slug');
}

export async function findPost(deps: ContentDeps, id: number): Promise<PostDoc | null> {
  return deps.models.posts.findOne({ _id: id, deletedAt: null }).lean<PostDoc>();
}

function assertOwner(caller: Caller, post: PostDoc): void {
  if (!caller.id) throw new DomainError('unauthenticated', 'Authentication required');
  if (post.author !== caller.id && !isAdmin(caller)) throw forbiddenError('Only the author or an admin may change this post');
}

/** Applies `changes` (already merged for PATCH, or complete for PUT) to a post the caller owns. */
export async function updatePost(
  deps: ContentDeps,
  caller: Caller,
  id: number,
  changes: Partial<PostFields> & { published?: boolean },
  names = new Map<string, string>(),
): Promise<{ post: PostDoc; author: UserDoc }> {
  const current = await findPost(deps, id);
  if (!current) throw notFoundError('Post');
  assertOwner(caller, current);
  const author = (await findUser(deps, current.author)) ?? (await ensureProfile(deps, caller));
  const { published: publishedChange, ...fields } = changes;
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
  };
  await rememberTaxonomy(deps, next.category, fields.tags ?? [], names);
  const event = buildContentEvent('post.updated', postSnapshot(next, author), { time: now });
  // viewCount is left out: a concurrent $inc from a read must not be overwritten.
  const { eventIds: _e, rev: _r, _id: _i, viewCount: _v, ...set } = next;
  const applied = await writeWithEvent(deps.models.outbox, 'posts', event, async (eventIds) => {
    const res = await deps.models.posts.updateOne(
      { _id: id, rev: current.rev, deletedAt: null },
      { $set: { ...set, eventIds, rev: current.rev + 1 } },
    );
    return res.matchedCount === 1;
  }, current);
  if (!applied) throw new DomainError('conflict', 'The post changed meanwhile; retry');
  await deps.invalidate('Post');
  return { post: { ...next, rev: current.rev + 1 }, author };
}

/** Soft-deletes a post and then its comments, each with its own `*.deleted` event. */
export async function deletePost(deps: ContentDeps, caller: Caller, id: number): Promise<void> {
  const current = await findPost(deps, id);
  if (!current) throw notFoundError('Post');
  assertOwner(caller, current);
  const author = (await findUser(deps, current.author)) ?? (await ensureProfile(deps, caller));
  const now = new Date();
  const event = buildContentEvent('post.deleted', postSnapshot({ ...current, updatedAt: now }, author), { time: now });
  const applied = await writeWithEvent(deps.models.outbox, 'posts', event, async (eventIds) => {
    const res = await deps.models.posts.updateOne(
      { _id: id, rev: current.rev, deletedAt: null },
      { $set: { deletedAt: now, updatedAt: now, eventIds, rev: current.rev + 1 } },
    );
    return res.matchedCount === 1;
  }, { eventIds: current.eventIds, deletes: true });
  if (!applied) throw new DomainError('conflict', 'The post changed meanwhile; retry');
  const comments = await deps.models.comments.find({ post: id, deletedAt: null }).lean<CommentDoc[]>();
  for (const comment of comments) {
    const commentAuthor = (await findUser(deps, comment.author)) ?? author;
    await markCommentDeleted(deps, comment, commentAuthor, current, now, 'comment.deleted');
  }
  await deps.invalidate('Post');
  if (comments.length > 0) await deps.invalidate('Comment');
}

export async function markCommentDeleted(
  deps: ContentDeps,
  comment: CommentDoc,
  author: UserDoc,
  post: PostDoc,
  now: Date,
  type: Extract<ContentEventType, 'comment.deleted'>,
): Promise<boolean> {
  const event = buildContentEvent(type, commentSnapshot({ ...comment, updatedAt: now }, author, post), { time: now });
  const applied = await writeWithEvent(deps.models.outbox, 'comments', event, async (eventIds) => {
    const res = await deps.models.comments.updateOne(
      { _id: comment._id, rev: comment.rev, deletedAt: null },
      { $set: { deletedAt: now, updatedAt: now, eventIds, rev: comment.rev + 1 } },
    );
    return res.matchedCount === 1;
  }, { eventIds: comment.eventIds, deletes: true });
  return applied !== false;
}
