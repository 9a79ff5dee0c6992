import type { Comment, Post, User } from './graphql-types.generated';

/**
 * What an event's `data` carries: the entity after the change, in the GraphQL shape, so the gateway can answer a
 * subscription's selection without calling content. Each snapshot is the GraphQL type (graphql-types.generated.ts,
 * generated from libs/graphql-schema's SDL: dates as DateTime serializes them, ISO-8601 strings) less its
 * relations, plus what only events carry: the service-local id (`localId`: the account id for users, the REST
 * integer for posts and comments) and the REST fields subscribers filter on. A field added to the SDL is in the
 * snapshot type, and so in content's snapshot builder and the AsyncAPI document, without naming it here.
 *
 * The relations are left out because a snapshot is one entity: connections (`posts`, `comments`, `replies`) need
 * a call to content's GraphQL endpoint, and a nested entity is a smaller snapshot of its own (`author`, `post`).
 */
export const SNAPSHOT_RELATIONS = {
  User: ['posts', 'comments'],
  Post: ['author', 'comments'],
  Comment: ['author', 'post', 'parent', 'replies'],
} as const;
type Relations<T extends keyof typeof SNAPSHOT_RELATIONS> = (typeof SNAPSHOT_RELATIONS)[T][number];

/** Nested author: enough for `author { id name avatar }` selections; no email (a user reference). */
export type AuthorSnapshot = Omit<User, Relations<'User'> | 'email'> & { localId: string };

export type UserSnapshot = AuthorSnapshot & {
  /** Non-null, unlike `User.email` (null for a caller who may not read it): subscriptions are served to
   * authenticated callers and the gateway decides whether a subscriber may see it (own profile or ADMIN),
   * as content does for queries. */
  email: string;
};

export type PostSnapshot = Omit<Post, Relations<'Post'>> & {
  localId: number;
  /** REST fields (no GraphQL field): the REST interface's readers of the events use them. */
  slug: string;
  published: boolean;
  category: string | null;
  author: AuthorSnapshot;
};

/** Nested post: the scalar fields, without its author or content body repeated. */
export type PostRefSnapshot = Pick<
  PostSnapshot,
  'id' | 'localId' | 'title' | 'slug' | 'status' | 'published' | 'createdAt'
> & {
  /**
   * The post's author's account id: a comment on a draft is visible to the post's author (and
   * moderators) only, and subscribers are filtered by the same rule. Absent in events written by
   * content before it carried this field; such comments on drafts reach moderators only.
   */
  authorId?: string;
};

export type CommentSnapshot = Omit<Comment, Relations<'Comment'>> & {
  localId: number;
  /** Global id of the parent comment, null for a top-level comment (`parent` is a relation). */
  parentId: string | null;
  author: AuthorSnapshot;
  post: PostRefSnapshot;
};

/** `*.deleted` events carry the last snapshot before deletion. */
export interface ContentEventDataMap {
  'user.created': UserSnapshot;
  'user.updated': UserSnapshot;
  'user.deleted': UserSnapshot;
  'post.created': PostSnapshot;
  'post.updated': PostSnapshot;
  'post.deleted': PostSnapshot;
  'comment.created': CommentSnapshot;
  'comment.updated': CommentSnapshot;
  'comment.deleted': CommentSnapshot;
}
