import type { ContentEvent } from '@platform/events';
import { subscriptionFieldOfEvent } from '@platform/graphql-schema';

/**
 * Which subscription field an event feeds, and the argument value it must match (from the
 * subscription-field descriptors of `@platform/graphql-schema`): `post.updated` feeds
 * `onPostUpdated(id)` subscribers of that post, `comment.created` feeds `onCommentAdded(postId)`
 * of the comment's post, `*.created` of users and posts feed the argument-less fields.
 */
interface EventRoute {
  field: string;
  /** Argument name and value subscribers filter on; absent for argument-less fields. */
  argument?: { name: string; value: string };
}

export function routeOfEvent(event: ContentEvent): EventRoute | null {
  const field = subscriptionFieldOfEvent(event.type);
  if (!field) return null;
  return field.filter
    ? { field: field.field, argument: { name: field.filter.argument, value: field.filter.valueOf(event) } }
    : { field: field.field };
}

export function routeKey(field: string, value?: string): string {
  return value === undefined ? field : `${field}\u0000${value}`;
}
