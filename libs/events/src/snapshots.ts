import type { PostStatus, UserRole, UserStatus } from './closed-lists';

/**
 * What an event's `data` carries: the entity after the change, in the GraphQL shape (field names
 * of the content API's GraphQL schema), so the gateway can answer a subscription's selection without calling content.
 * Ids are GraphQL global ids (`id`) plus the service-local id (`localId`: the account id for
 * users, the REST integer for posts, a number for comments). Dates are ISO-8601 strings.
 * Fields a snapshot cannot carry (connections such as `posts`, `comments`, `replies`) need a
 * call to content's GraphQL endpoint.
 */
export interface UserSnapshot {
  id: string;
  localId: string;
  name: string;
  /** Included because subscriptions are served to authenticated callers; the gateway decides
   * whether a subscriber may see it (own profile or ADMIN), as content does for queries. */
  email: string;
  avatar: string | null;
  status: UserStatus;
  role: UserRole;
  createdAt: string;
  updatedAt: string | null;
}

/** Nested author: enough for `author { id name avatar }` selections. */
export type AuthorSnapshot = Pick<
  UserSnapshot,
  'id' | 'localId' | 'name' | 'avatar' | 'status' | 'role' | 'createdAt' | 'updatedAt'
>;

export interface PostSnapshot {
  id: string;
  localId: number;
  title: string;
  slug: string;
  content: string;
  excerpt: string | null;
  status: PostStatus;
  published: boolean;
  tags: string[];
  category: string | null;
  viewCount: number;
  createdAt: string;
  publishedAt: string | null;
  updatedAt: string | null;
  author: AuthorSnapshot;
}

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

export interface CommentSnapshot {
  id: string;
  localId: number;
  content: string;
  /** Global id of the parent comment, null for a top-level comment. */
  parentId: string | null;
  createdAt: string;
  updatedAt: string | null;
  author: AuthorSnapshot;
  post: PostRefSnapshot;
}

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
