import type { ContentEvent, ContentEventType } from '@platform/events';

type EventOf<T extends ContentEventType> = Extract<ContentEvent, { type: T }>;

/**
 * A root field of `type Subscription` and the content event that feeds it: the one place a
 * subscription field is declared. The gateway's event router and its hub index, and the content
 * service's "not served here" resolvers derive from this list; a test holds it to the SDL.
 */
export interface SubscriptionField<T extends ContentEventType = ContentEventType> {
  field: string;
  /** The event type whose events this field delivers. */
  event: T;
  /** The argument subscribers filter on, and its value in an event; absent for argument-less fields. */
  filter?: {
    argument: string;
    valueOf(event: EventOf<T>): string;
  };
}

/** Each field typed against its own event, so `valueOf` reads that event's data. */
const field = <T extends ContentEventType>(descriptor: SubscriptionField<T>): SubscriptionField =>
  descriptor as unknown as SubscriptionField;

/** Deletions and comment updates feed nothing: the schema has no such subscription fields. */
export const SUBSCRIPTION_FIELDS: readonly SubscriptionField[] = [
  field({ field: 'onUserCreated', event: 'user.created' }),
  field({ field: 'onUserUpdated', event: 'user.updated', filter: { argument: 'id', valueOf: (e) => e.data.id } }),
  field({ field: 'onPostCreated', event: 'post.created' }),
  field({ field: 'onPostUpdated', event: 'post.updated', filter: { argument: 'id', valueOf: (e) => e.data.id } }),
  field({
    field: 'onCommentAdded',
    event: 'comment.created',
    filter: { argument: 'postId', valueOf: (e) => e.data.post.id },
  }),
];

const byField = new Map(SUBSCRIPTION_FIELDS.map((f) => [f.field, f]));
const byEvent = new Map(SUBSCRIPTION_FIELDS.map((f) => [f.event, f]));

/** The subscription field named `name`, if the schema has one. */
export function subscriptionField(name: string): SubscriptionField | undefined {
  return byField.get(name);
}

/** The subscription field `type`'s events feed, if any. */
export function subscriptionFieldOfEvent(type: ContentEventType): SubscriptionField | undefined {
  return byEvent.get(type);
}
