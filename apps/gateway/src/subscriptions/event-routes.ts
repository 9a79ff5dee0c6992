import type { ContentEvent } from '@platform/events';

/**
 * Which subscription field an event feeds, and the argument value it must match:
 * `post.updated` feeds `onPostUpdated(id)` subscribers of that post, `comment.created` feeds
 * `onCommentAdded(postId)` of the comment's post, `*.created` of users and posts feed the
 * argument-less fields. Deletions and comment updates feed nothing (the GraphQL schema has no such subscription fields).
 */
export interface EventRoute {
  field: string;
  /** Argument name and value subscribers filter on; absent for argument-less fields. */
  argument?: { name: string; value: string };
}

export function routeOfEvent(event: ContentEvent): EventRoute | null {
  switch (event.type) {
    case 'user.created':
      return { field: 'onUserCreated' };
    case 'user.updated':
      return { field: 'onUserUpdated', argument: { name: 'id', value: event.data.id } };
    case 'post.created':
      return { field: 'onPostCreated' };
    case 'post.updated':
      return { field: 'onPostUpdated', argument: { name: 'id', value: event.data.id } };
    case 'comment.created':
      return { field: 'onCommentAdded', argument: { name: 'postId', value: event.data.post.id } };
    default:
      return null;
  }
}

/** Field name → the argument it filters on (the hub indexes groups by it). */
export const FILTER_ARGUMENT: Record<string, string | undefined> = {
  onUserCreated: undefined,
  onUserUpdated: 'id',
  onPostCreated: undefined,
  onPostUpdated: 'id',
  onCommentAdded: 'postId',
};

export function routeKey(field: string, value?: string): string {
  return value === undefined ? field : `${field}\u0000${value}`;
}
