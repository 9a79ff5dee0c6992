import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { contentTopics, parseContentEvent, type ContentEvent } from '@platform/events';
import { stackEnv, uniqueName } from '@platform/testing';

/**
 * A real Kafka consumer on a test's prefixed content topics, collecting every event it sees. Its
 * group is new and reads from the beginning, so whenever it joins it sees every message: nothing
 * waits for the join.
 */
export interface EventCollector {
  events: ContentEvent[];
  /** Kafka message keys in arrival order (per topic). */
  keys: string[];
  /**
   * How many messages the broker holds on these topics (the partitions' end offsets). Once the
   * outbox is empty nothing more is sent, so this is the final count of what content published,
   * duplicates included: a test compares it with what it expects instead of waiting for extras.
   */
  published: () => Promise<number>;
  stop: () => Promise<void>;
}

export async function collectEvents(topicPrefix: string): Promise<EventCollector> {
  const kafka = new Kafka({
    clientId: 'content-tests',
    brokers: stackEnv().KAFKA_BROKERS.split(','),
    logLevel: logLevel.NOTHING,
  });
  const topics = Object.values(contentTopics(topicPrefix));
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: 3 })), waitForLeaders: true });
  await admin.disconnect();
  const consumer: Consumer = kafka.consumer({ groupId: uniqueName('content-tests') });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  const events: ContentEvent[] = [];
  const keys: string[] = [];
  await consumer.run({
    eachMessage: async ({ message }) => {
      events.push(parseContentEvent(message.value));
      keys.push(message.key?.toString() ?? '');
    },
  });
  return {
    events,
    keys,
    async published() {
      const offsets = kafka.admin();
      await offsets.connect();
      try {
        const perTopic = await Promise.all(topics.map((topic) => offsets.fetchTopicOffsets(topic)));
        return perTopic.flat().reduce((sum, partition) => sum + Number(partition.high), 0);
      } finally {
        await offsets.disconnect();
      }
    },
    async stop() {
      await consumer.disconnect();
      const cleanup = kafka.admin();
      await cleanup.connect();
      await cleanup.deleteTopics({ topics }).catch(() => undefined);
      await cleanup.disconnect();
    },
  };
}
