import {
  CONTENT_EVENT_SCHEMA_V1,
  CONTENT_EVENT_SOURCE,
  CONTENT_EVENT_TYPES,
  CONTENT_TOPIC_BASES,
  entityOfType,
  type ContentEntity,
  type ContentEventType,
} from '@platform/events';
import type { JsonValue } from '../document';
import { snapshotSchemas } from './snapshot-schemas';

/**
 * The content service's events on Kafka (libs/events): one topic per entity, each message a CloudEvents
 * 1.0 structured-mode JSON envelope whose `data` is the entity after the change. Topic names and event
 * types come from @platform/events, so the document lists exactly what the code produces.
 */
const SNAPSHOT_OF: Record<ContentEntity, keyof typeof snapshotSchemas> = {
  user: 'UserSnapshot',
  post: 'PostSnapshot',
  comment: 'CommentSnapshot',
};

/** Channel key for an entity's topic: `contentPosts` for `content.posts`. */
function topicChannelKey(entity: ContentEntity): string {
  return `content${entity[0]!.toUpperCase()}${entity.slice(1)}s`;
}

/** Message key for an event type: `postCreated` for `post.created`. */
function eventMessageKey(type: ContentEventType): string {
  const [entity, change] = type.split('.') as [string, string];
  return `${entity}${change[0]!.toUpperCase()}${change.slice(1)}`;
}

function envelope(type: ContentEventType): JsonValue {
  return {
    type: 'object',
    description: 'CloudEvents 1.0, structured content mode (JSON).',
    required: ['specversion', 'id', 'source', 'type', 'subject', 'time', 'datacontenttype', 'dataschema', 'data'],
    properties: {
      specversion: { const: '1.0' },
      id: {
        type: 'string',
        description: 'Unique per event; the relay delivers at least once, so consumers dedupe on it.',
      },
      source: { const: CONTENT_EVENT_SOURCE },
      type: { const: type },
      subject: { type: 'string', description: 'The GraphQL global id of the entity; also the Kafka message key.' },
      time: { type: 'string', format: 'date-time' },
      datacontenttype: { const: 'application/json' },
      dataschema: {
        const: CONTENT_EVENT_SCHEMA_V1,
        description: 'Versions the data shape: a breaking change gets a new URN.',
      },
      data: { $ref: `#/components/schemas/${SNAPSHOT_OF[entityOfType(type)]}` },
    },
  };
}

function eventMessage(type: ContentEventType): JsonValue {
  const change = type.slice(type.indexOf('.') + 1);
  return {
    name: type,
    title: type,
    summary: `A ${entityOfType(type)} was ${change}${change === 'deleted' ? ' (data: its last snapshot)' : ''}.`,
    contentType: 'application/cloudevents+json',
    payload: envelope(type),
    bindings: {
      kafka: {
        bindingVersion: '0.5.0',
        key: {
          type: 'string',
          description: "The subject: the entity's global id, so its events stay in order on one partition.",
        },
      },
    },
  };
}

const ENTITIES = Object.keys(CONTENT_TOPIC_BASES) as ContentEntity[];

export const contentEventChannels: Record<string, JsonValue> = Object.fromEntries(
  ENTITIES.map((entity) => [
    topicChannelKey(entity),
    {
      address: CONTENT_TOPIC_BASES[entity],
      title: `Kafka topic ${CONTENT_TOPIC_BASES[entity]}`,
      description: `The ${entity} events. A deployment's KAFKA_TOPIC_PREFIX is prepended to the name (prefix \`t1_\` gives \`t1_${CONTENT_TOPIC_BASES[entity]}\`).`,
      servers: [{ $ref: '#/servers/kafka' }],
      messages: Object.fromEntries(
        CONTENT_EVENT_TYPES.filter((type) => entityOfType(type) === entity).map((type) => [
          eventMessageKey(type),
          eventMessage(type),
        ]),
      ),
    },
  ]),
);

export const contentEventOperations: Record<string, JsonValue> = Object.fromEntries(
  ENTITIES.map((entity) => {
    const key = topicChannelKey(entity);
    return [
      `publish${key[0]!.toUpperCase()}${key.slice(1)}`,
      {
        action: 'send',
        channel: { $ref: `#/channels/${key}` },
        title: `Content publishes ${entity} events`,
        description:
          'Written through a transactional outbox: every committed change is published, at least once, in order per entity.',
        messages: CONTENT_EVENT_TYPES.filter((type) => entityOfType(type) === entity).map((type) => ({
          $ref: `#/channels/${key}/messages/${eventMessageKey(type)}`,
        })),
      },
    ];
  }),
);

export { snapshotSchemas };
