import { buildSchema, getNamedType, getNullableType, isNonNullType } from 'graphql';
import { CONTENT_EVENT_TYPES } from '@platform/events';
import { SUBSCRIPTION_FIELDS, subscriptionField, subscriptionFieldOfEvent, typeDefs } from '@platform/graphql-schema';

/** The subscription-field descriptors against the SDL they stand for and the events that feed them. */
describe('subscription fields', () => {
  const subscription = buildSchema(typeDefs).getSubscriptionType()!.getFields();

  it('name every subscription field of the schema, once', () => {
    expect(SUBSCRIPTION_FIELDS.map((f) => f.field).sort()).toEqual(Object.keys(subscription).sort());
  });

  it("filter on the field's only argument, a required ID, and argument-less fields on none", () => {
    for (const { field, filter } of SUBSCRIPTION_FIELDS) {
      const args = subscription[field]!.args;
      expect(args.map((a) => a.name)).toEqual(filter ? [filter.argument] : []);
      if (filter) {
        expect(isNonNullType(args[0]!.type)).toBe(true);
        expect(getNamedType(getNullableType(args[0]!.type)).name).toBe('ID');
      }
    }
  });

  it('are fed by distinct content event types', () => {
    const events = SUBSCRIPTION_FIELDS.map((f) => f.event);
    expect(new Set(events).size).toBe(events.length);
    for (const event of events) expect(CONTENT_EVENT_TYPES).toContain(event);
  });

  it('are found by field name and by event type', () => {
    expect(subscriptionField('onCommentAdded')?.event).toBe('comment.created');
    expect(subscriptionField('onPostDeleted')).toBeUndefined();
    expect(subscriptionFieldOfEvent('post.updated')?.field).toBe('onPostUpdated');
    expect(subscriptionFieldOfEvent('post.deleted')).toBeUndefined();
  });
});
