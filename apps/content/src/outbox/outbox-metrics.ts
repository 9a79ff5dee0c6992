import { Counter, Gauge, Histogram, metricsRegistry } from '@platform/metrics';

/**
 * The outbox's Prometheus metrics (docs/operations.md, "Metrics"), on the process's registry that
 * METRICS_PORT serves. Published events and their delay are recorded by the relay (outbox/relay.ts);
 * the backlog is read from MongoDB when Prometheus scrapes (`watchOutboxBacklog`).
 */
const published = new Counter({
  name: 'content_outbox_published_total',
  help: 'Content events the outbox relay published to Kafka (acknowledged by every in-sync replica), by topic.',
  labelNames: ['topic'] as const,
  registers: [metricsRegistry],
});

const relayDelay = new Histogram({
  name: 'content_outbox_relay_delay_seconds',
  help: "From an event's time (set as its write is made, in the same transaction) to Kafka's acknowledgement of it.",
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [metricsRegistry],
});

/** An event Kafka acknowledged: counted under its topic, its delay since its `time` observed. */
export function recordPublished(topic: string, eventTime: string, now = Date.now()): void {
  published.inc({ topic });
  const written = Date.parse(eventTime);
  // A clock step backwards between write and publish is not a negative delay.
  if (Number.isFinite(written)) relayDelay.observe(Math.max(0, now - written) / 1000);
}

/**
 * `content_outbox_backlog_events`: events committed but not yet published, counted on each scrape
 * with `countBacklog` (the outbox collection's size: records are deleted once Kafka acknowledged them).
 * Once per process (the registry refuses a second metric of the same name).
 */
export function watchOutboxBacklog(countBacklog: () => Promise<number>): void {
  new Gauge({
    name: 'content_outbox_backlog_events',
    help: 'Content events committed to the outbox but not yet published to Kafka.',
    registers: [metricsRegistry],
    async collect() {
      this.set(await countBacklog());
    },
  });
}
