import { randomUUID } from 'node:crypto';
import type { mongo } from 'mongoose';
import type { Producer } from 'kafkajs';
import { contentTopic, entityOfType, serializeContentEvent } from '@platform/events';
import type { Logger } from '@platform/logger';
import { contextFrom, endSpan, SpanKind, startSpan, traceCarrier } from '@platform/tracing';
import type { Models, OutboxDoc } from '../models';
import { createLease } from './lease';
import { recordPublished } from './outbox-metrics';

/**
 * Publishes outbox records (models/outbox-model.ts) to Kafka: a polling relay, with wake-ups.
 *
 * - Source of truth: the outbox collection, read with readConcern "snapshot" in
 *   (entity, revision) order. Transactions writing one entity commit one after the other, so a
 *   snapshot that holds an entity's revision r+1 holds every earlier one still in the outbox, and
 *   publishing each entity's records in revision order is publishing them in commit order. A batch
 *   cut by the limit ends with a prefix of one entity's records; the rest follow next pass.
 * - Records are deleted only after Kafka acknowledged them (acks -1, one request in flight, an
 *   idempotent producer (libs/events `CONTENT_EVENT_PRODUCER`), the entity's global id as key). A relay that dies between the two publishes them again: delivery
 *   is at least once, consumers dedupe by event id.
 * - Latency: a pass runs when this process commits a write (`wake`, from main.ts) or a change
 *   stream on the outbox reports an insert by another replica (records carry their writer's
 *   `origin`; the stream leaves out this process's own, which `wake` already reported); polling
 *   every `pollMs` remains, so a missed wake-up costs at most one interval. After a full batch the
 *   next pass follows at once.
 * - Batching: passes start at most once per `lingerMs`. A commit after a quiet spell is published
 *   at once; commits that come while passes keep running wait for the next start and share it.
 *   Each pass costs a find, a produce request and a delete, and each event batch costs every
 *   consumer a fetch and every subscriber's socket a write, so under load a few tens of
 *   milliseconds here divide the work of every stage after it (docs/benchmarks.md, "Subscriptions").
 * - One relay at a time across replicas: a lease in MongoDB (outbox/lease.ts), checked every pass.
 *   Replicas without it keep polling for it and ignore wake-ups. A relay paused past the lease TTL
 *   may publish a batch twice (at least once, see above).
 * - Kafka down: a pass fails, records stay, passes back off (≤ 3 s) and ignore wake-ups until a
 *   broker answers.
 */
export interface RelayOptions {
  models: Models;
  /**
   * A new producer session (`createContentEventProducer` of libs/events): one per connection, and a new one
   * after a failed pass, since an idempotent producer whose send failed may be refused for good.
   */
  createProducer: () => Producer;
  logger: Logger;
  topicPrefix: string;
  pollMs?: number;
  leaseTtlMs?: number;
  batchSize?: number;
  /** The least time between the starts of two passes that wake-ups ask for (default 0: no wait). */
  lingerMs?: number;
  /** Wake up on inserts into the outbox seen through a change stream (default true). */
  watch?: boolean;
  /** The `origin` this process's records carry (`ContentDeps.outboxOrigin`): the change stream leaves them out. */
  origin?: string;
}

export interface Relay {
  /** One pass; resolves with the number of events published (0 when another replica holds the lease). */
  runOnce: () => Promise<number>;
  /** A pass as soon as possible: this process committed outbox records. */
  wake: () => void;
  /** Starts polling at once, and watching; resolves once a first pass ran and the change stream is open (or failed). Never rejects. */
  start: () => Promise<void>;
  stop: () => Promise<void>;
}

const RELAY_LEASE = 'outbox-relay';
const BACKOFF_MAX_MS = 3000;
const REWATCH_MS = 1000;

export function createRelay(options: RelayOptions): Relay {
  const { models, logger, topicPrefix } = options;
  const pollMs = options.pollMs ?? 200;
  const batchSize = options.batchSize ?? 500;
  const lingerMs = options.lingerMs ?? 0;
  const lease = createLease(models.leases, RELAY_LEASE, randomUUID(), options.leaseTtlMs ?? 10_000);
  let producer: Producer | undefined;
  let holding = false;
  let stopped = true;
  let failures = 0;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  /** When the scheduled pass runs (performance.now()); Infinity when none is. */
  let dueAt = Infinity;
  /** When the last pass started (performance.now()). */
  let startedAt = -Infinity;
  let rewatch: NodeJS.Timeout | undefined;
  let stream: mongo.ChangeStream | undefined;
  let running: Promise<number> | undefined;

  async function pass(): Promise<number> {
    startedAt = performance.now();
    holding = await lease.hold();
    if (!holding) return 0;
    const records = await models.outbox
      .find({})
      .sort({ entityType: 1, entityId: 1, rev: 1 })
      .limit(batchSize)
      .readConcern('snapshot')
      .lean<OutboxDoc[]>();
    if (records.length === 0) return 0;
    if (!producer) {
      const fresh = options.createProducer();
      await fresh.connect().catch(async (err: unknown) => {
        await fresh.disconnect().catch(() => undefined);
        throw err;
      });
      producer = fresh;
    }
    const session = producer;
    const byTopic = new Map<string, { key: string; value: string; headers: Record<string, string> }[]>();
    // One span per event, a child of the write's (the record's trace context); the message carries
    // the span's context in its headers (W3C Trace Context) for the consumers.
    const spans = records.map(({ event, trace }) => {
      const topic = contentTopic(entityOfType(event.type), topicPrefix);
      const span = startSpan(`${topic} publish`, {
        kind: SpanKind.PRODUCER,
        parent: contextFrom(trace),
        attributes: {
          'messaging.system': 'kafka',
          'messaging.destination.name': topic,
          'messaging.message.id': event.id,
          'messaging.kafka.message.key': event.subject,
        },
      });
      const list = byTopic.get(topic) ?? [];
      list.push({
        key: event.subject,
        value: serializeContentEvent(event),
        headers: { ce_id: event.id, ce_type: event.type, ...traceCarrier(span) },
      });
      byTopic.set(topic, list);
      return span;
    });
    try {
      await session.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
    } catch (err) {
      for (const span of spans) endSpan(span, err);
      // This session is not used again (see createProducer): the next pass starts a new one.
      if (producer === session) producer = undefined;
      void session.disconnect().catch(() => undefined);
      throw err;
    }
    for (const span of spans) endSpan(span);
    const acknowledged = Date.now();
    for (const { event } of records)
      recordPublished(contentTopic(entityOfType(event.type), topicPrefix), event.time, acknowledged);
    await models.outbox.deleteMany({ _id: { $in: records.map((r) => r._id) } });
    return records.length;
  }

  function runOnce(): Promise<number> {
    running ??= pass().finally(() => (running = undefined));
    return running;
  }

  function schedule(delay: number): void {
    if (stopped) return;
    clearTimeout(timer);
    dueAt = performance.now() + delay;
    timer = setTimeout(() => void tick(), delay);
  }

  /** A pass, then the next one scheduled by its outcome. Never rejects. */
  async function tick(): Promise<void> {
    timer = undefined;
    dueAt = Infinity;
    again = false;
    try {
      const count = await runOnce();
      failures = 0;
      schedule(count >= batchSize ? 0 : again ? untilLingered() : pollMs);
    } catch (err) {
      failures += 1;
      holding = false;
      if (failures === 1 || failures % 50 === 0)
        logger.warn({ err: String(err), failures }, 'outbox relay pass failed; retrying');
      schedule(Math.min(pollMs * 2 ** Math.min(failures, 4), BACKOFF_MAX_MS));
    }
  }

  /** How long until a pass may start: `lingerMs` after the last one started. */
  function untilLingered(): number {
    return Math.max(0, startedAt + lingerMs - performance.now());
  }

  function wake(): void {
    if (stopped || !holding || failures > 0) return;
    if (running) again = true;
    else {
      // A pass already due by then takes this commit too.
      const delay = untilLingered();
      if (dueAt > performance.now() + delay) schedule(delay);
    }
  }

  /** Opens the change stream; resolves once the server answered (or the stream failed). Never rejects. */
  function watch(): Promise<void> {
    return new Promise((resolve) => {
      const reopen = () => {
        resolve();
        if (!stopped) rewatch = setTimeout(() => void watch(), REWATCH_MS);
      };
      let changes: mongo.ChangeStream;
      try {
        const inserted =
          options.origin === undefined
            ? { operationType: 'insert' }
            : { operationType: 'insert', 'fullDocument.origin': { $ne: options.origin } };
        changes = models.outbox.collection.watch([{ $match: inserted }, { $project: { _id: 1 } }]);
      } catch (err) {
        logger.warn({ err: String(err) }, 'outbox change stream failed to open; polling only until it is reopened');
        reopen();
        return;
      }
      stream = changes;
      // The first resume token comes with the server's answer: inserts from now on are reported,
      // and a pass catches up with any committed before.
      changes.once('resumeTokenChanged', () => {
        resolve();
        wake();
      });
      changes.on('change', wake);
      changes.on('error', (err: unknown) => {
        logger.warn({ err: String(err) }, 'outbox change stream failed; polling only until it is reopened');
        void changes.close().catch(() => undefined);
      });
      changes.once('close', () => {
        if (stream === changes) stream = undefined;
        reopen();
      });
    });
  }

  return {
    runOnce,
    wake,
    async start() {
      if (!stopped) return;
      stopped = false;
      // Polling does not wait for the change stream: it is the source of truth.
      const watching = (options.watch ?? true) ? watch() : Promise.resolve();
      await tick();
      await watching;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(rewatch);
      await stream?.close().catch(() => undefined);
      await running?.catch(() => 0);
      await lease.release().catch(() => undefined);
      await producer?.disconnect().catch(() => undefined);
    },
  };
}
