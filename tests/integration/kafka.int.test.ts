import { Kafka, logLevel } from 'kafkajs';
import { stackEnv, uniqueName } from '@platform/testing';

describe('Kafka from the local stack', () => {
  it('delivers a produced message to a consumer group', async () => {
    const kafka = new Kafka({
      clientId: 'it',
      brokers: stackEnv().KAFKA_BROKERS.split(','),
      logLevel: logLevel.NOTHING,
    });
    const topic = uniqueName('it.topic');
    const admin = kafka.admin();
    const producer = kafka.producer();
    const consumer = kafka.consumer({ groupId: uniqueName('it-group') });
    try {
      await admin.connect();
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
      await producer.connect();
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const received = new Promise<{ key: string; value: string }>((resolve) => {
        void consumer.run({
          eachMessage: async ({ message }) => {
            resolve({ key: message.key?.toString() ?? '', value: message.value?.toString() ?? '' });
          },
        });
      });
      await producer.send({ topic, messages: [{ key: 'k1', value: JSON.stringify({ hello: 'kafka' }) }] });
      // The bound only turns a lost message into a readable failure; its timer is cleared either way.
      let timer: NodeJS.Timeout | undefined;
      const message = await Promise.race([
        received,
        new Promise<never>(
          (_, reject) => (timer = setTimeout(() => reject(new Error('no message within 20 s')), 20_000)),
        ),
      ]).finally(() => clearTimeout(timer));
      expect(message.key).toBe('k1');
      expect(JSON.parse(message.value)).toEqual({ hello: 'kafka' });
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    }
  }, 45_000);
});
