import type { AuthorSnapshot, CommentSnapshot, PostRefSnapshot, PostSnapshot, UserSnapshot } from '@platform/events';
import { toGlobalId } from '@platform/graphql-schema';
import type { CommentDoc, PostDoc, UserDoc } from '../models';

/** Entity documents → the event snapshots of libs/events (GraphQL field names, ISO dates). */
const iso = (d: Date | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

export function userSnapshot(user: UserDoc): UserSnapshot {
  return {
    id: toGlobalId('User', user._id),
    localId: user._id,
    name: user.name,
    email: user.email,
    avatar: user.avatar ?? null,
    status: user.status,
    role: user.role,
    createdAt: iso(user.createdAt)!,
    updatedAt: iso(user.updatedAt),
  };
}

function authorSnapshot(user: UserDoc): AuthorSnapshot {
  const { email: _email, ...rest } = userSnapshot(user);
  return rest;
}

export function postSnapshot(post: PostDoc, author: UserDoc): PostSnapshot {
  return {
    id: toGlobalId('Post', post._id),
    localId: post._id,
    title: post.title,
    slug: post.slug,
    content: post.content,
    excerpt: post.excerpt ?? null,
    status: post.status,
    published: post.published,
    tags: post.tags,
    category: post.category ?? null,
    viewCount: post.viewCount,
    createdAt: iso(post.createdAt)!,
    publishedAt: iso(post.publishedAt),
    updatedAt: iso(post.updatedAt),
    author: authorSnapshot(author),
  };
}

function postRefSnapshot(post: PostDoc): PostRefSnapshot {
  return {
    id: toGlobalId('Post', post._id),
    localId: post._id,
    title: post.title,
    slug: post.slug,
    status: post.status,
    published: post.published,
    createdAt: iso(post.createdAt)!,
    authorId: post.author,
  };
}

export function commentSnapshot(comment: CommentDoc, author: UserDoc, post: PostDoc): CommentSnapshot {
  return {
    id: toGlobalId('Comment', comment._id),
    localId: comment._id,
    content: comment.content,
    parentId: comment.parent === null ? null : toGlobalId('Comment', comment.parent),
    createdAt: iso(comment.createdAt)!,
    updatedAt: iso(comment.updatedAt),
    author: authorSnapshot(author),
    post: postRefSnapshot(post),
  };
}
