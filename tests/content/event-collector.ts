import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { contentTopics, parseContentEvent, type ContentEvent } from '@platform/events';
import { stackEnv, uniqueName } from '@platform/testing';

/** A real Kafka consumer on a test's prefixed content topics, collecting every event it sees. */
export interface EventCollector {
  events: ContentEvent[];
  /** Kafka message keys in arrival order (per topic). */
  keys: string[];
  stop: () => Promise<void>;
}

export async function collectEvents(topicPrefix: string): Promise<EventCollector> {
  const kafka = new Kafka({ clientId: 'content-tests', brokers: stackEnv().KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING });
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
  let joined!: () => void;
  const ready = new Promise<void>((resolve) => (joined = resolve));
  consumer.on(consumer.events.GROUP_JOIN, () => joined());
  await consumer.run({
    eachMessage: async ({ message }) => {
      events.push(parseContentEvent(message.value));
      keys.push(message.key?.toString() ?? '');
    },
  });
  await Promise.race([ready, new Promise((r) => setTimeout(r, 15_000))]);
  return {
    events,
    keys,
    async stop() {
      await consumer.disconnect();
      const cleanup = kafka.admin();
      await cleanup.connect();
      await cleanup.deleteTopics({ topics }).catch(() => undefined);
      await cleanup.disconnect();
    },
  };
}
