import type { Kafka, Producer, ProducerConfig } from 'kafkajs';
import { createContentEventProducer } from '../src';

it('content events are produced idempotently, one request in flight, with bounded retries', () => {
  const configs: (ProducerConfig | undefined)[] = [];
  const kafka: Pick<Kafka, 'producer'> = {
    producer: (config) => {
      configs.push(config);
      return {} as Producer;
    },
  };
  createContentEventProducer(kafka);
  expect(configs).toEqual([
    { idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true, retry: { retries: 5 } },
  ]);
});
