import type { Kafka, Producer, ProducerConfig } from 'kafkajs';

/**
 * How the content events are produced (kafkajs):
 * - `idempotent: true`: the broker drops a batch it already wrote when the client sends it again within one
 *   producer session (a response lost to a broker restart or a timeout, retried by kafkajs), so such a retry
 *   cannot write an event twice. Idempotence needs acks from all in-sync replicas (`acks: -1` on each send,
 *   which kafkajs checks) and retries.
 * - `maxInFlightRequests: 1`: Kafka keeps order across a retry with idempotence for up to 5 requests in flight;
 *   kafkajs numbers each batch before it is sent and takes the numbers back when a request fails, which is only
 *   sound with one request at a time. One in flight also keeps an entity's events in order on its partition.
 * - bounded retries (5, the client's): the relay's pass must fail in the end while the broker is away, so the
 *   relay backs off, gives up its lease to another replica, and can be stopped. kafkajs would otherwise retry
 *   forever for an idempotent producer.
 *
 * A producer whose send failed must not send again: kafkajs keeps its session's sequence numbers where the
 * failed request left them, and if the broker did write that batch, the next (differently cut) batch is
 * refused as out of order, for good. So the relay takes a new producer (a new session) after a failure; the
 * batch it then publishes again may duplicate events the broker had written (delivery is at least once;
 * consumers dedupe by event id).
 */
export const CONTENT_EVENT_PRODUCER: ProducerConfig = {
  idempotent: true,
  maxInFlightRequests: 1,
  allowAutoTopicCreation: true,
  retry: { retries: 5 },
};

/** A new producer session for the content events. */
export function createContentEventProducer(kafka: Pick<Kafka, 'producer'>): Producer {
  return kafka.producer(CONTENT_EVENT_PRODUCER);
}
