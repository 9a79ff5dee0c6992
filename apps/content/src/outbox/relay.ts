import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Producer } from 'kafkajs';
import { contentTopic, entityOfType, serializeContentEvent } from '@platform/events';
import type { Logger } from '@platform/logger';
import type { Models, OutboxDoc } from '../models';
import { acquireLease, releaseLease } from './redis-lease';

/**
 * Publishes outbox records (protocol in models/outbox-fields.ts) to Kafka.
 *
 * - One relay at a time across replicas: a Redis lease renewed on every pass. A replica paused
 *   past the TTL may publish a batch again; delivery is at least once and consumers dedupe by
 *   event id (architecture.md).
 * - Per-entity order: records sorted by (`at`, `n`); an entity's records after a pending one
 *   wait; a batch is sent with one request in flight and the entity's global id as key.
 * - Records are deleted only after Kafka acknowledged them: with Kafka down they stay, and the
 *   next pass that reaches a broker publishes them.
 */
export interface RelayOptions {
  models: Models;
  redis: Redis;
  redisPrefix: string;
  producer: Producer;
  logger: Logger;
  topicPrefix: string;
  pollMs?: number;
  leaseTtlMs?: number;
  /** Age after which a pending record is resolved from its entity (the writer must be gone). */
  pendingTimeoutMs?: number;
  batchSize?: number;
}

export interface Relay {
  /** One pass; resolves with the number of events published. */
  runOnce: () => Promise<number>;
  start: () => void;
  stop: () => Promise<void>;
}

export function createRelay(options: RelayOptions): Relay {
  const { models, producer, logger, topicPrefix, redis } = options;
  const pollMs = options.pollMs ?? 200;
  const leaseTtlMs = options.leaseTtlMs ?? 10_000;
  const pendingTimeoutMs = options.pendingTimeoutMs ?? 30_000;
  const batchSize = options.batchSize ?? 500;
  const leaseKey = `${options.redisPrefix}outbox-relay-lease`;
  const holder = randomUUID();
  let connected = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopped = true;
  let failures = 0;

  async function committed(record: OutboxDoc): Promise<boolean> {
    const model = models[record.entityType] as unknown as {
      exists: (filter: Record<string, unknown>) => Promise<unknown>;
    };
    const id = record.entityType === 'users' ? record.entityId : Number(record.entityId);
    return (await model.exists({ _id: id, eventIds: record._id })) !== null;
  }

  async function pass(): Promise<number> {
    if (!(await acquireLease(redis, leaseKey, holder, leaseTtlMs))) return 0;
    const records = await models.outbox.find({}).sort({ at: 1, n: 1 }).limit(batchSize).lean<OutboxDoc[]>();
    if (records.length === 0) return 0;
    const blocked = new Set<string>();
    const publish: OutboxDoc[] = [];
    const now = Date.now();
    for (const record of records) {
      const entity = `${record.entityType}:${record.entityId}`;
      if (blocked.has(entity)) continue;
      if (record.state === 'ready') {
        publish.push(record);
        continue;
      }
      if (now - new Date(record.at).getTime() < pendingTimeoutMs) {
        blocked.add(entity);
        continue;
      }
      if (await committed(record)) {
        publish.push(record);
        continue;
      }
      // Only while still pending: a writer that dropped the id from the entity after this pass
      // read the record has marked it ready first (step 0); it goes out in order next pass.
      const discarded = await models.outbox.deleteOne({ _id: record._id, state: 'pending' });
      if (discarded.deletedCount === 1) logger.warn({ eventId: record._id, type: record.event.type }, 'discarding the event of a write that did not happen');
      else blocked.add(entity);
    }
    if (publish.length === 0) return 0;
    if (!connected) {
      await producer.connect();
      connected = true;
    }
    const byTopic = new Map<string, { key: string; value: string; headers: Record<string, string> }[]>();
    for (const record of publish) {
      const topic = contentTopic(entityOfType(record.event.type), topicPrefix);
      const list = byTopic.get(topic) ?? [];
      list.push({ key: record.event.subject, value: serializeContentEvent(record.event), headers: { ce_id: record.event.id, ce_type: record.event.type } });
      byTopic.set(topic, list);
    }
    await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
    await models.outbox.deleteMany({ _id: { $in: publish.map((r) => r._id) } });
    // A soft-deleted entity goes away once its deletion is out.
    for (const record of publish) {
      if (!record.event.type.endsWith('.deleted')) continue;
      const model = models[record.entityType] as unknown as { deleteOne: (f: Record<string, unknown>) => Promise<unknown> };
      const id = record.entityType === 'users' ? record.entityId : Number(record.entityId);
      await model.deleteOne({ _id: id, deletedAt: { $ne: null } });
    }
    return publish.length;
  }

  function runOnce(): Promise<number> {
    running ??= pass().finally(() => (running = undefined));
    return running;
  }

  function schedule(delay: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      runOnce().then(
        (count) => {
          failures = 0;
          schedule(count > 0 ? 0 : pollMs);
        },
        (err: unknown) => {
          failures += 1;
          if (connected) void producer.disconnect().catch(() => undefined);
          connected = false;
          if (failures === 1 || failures % 50 === 0) logger.warn({ err: String(err), failures }, 'outbox relay pass failed; retrying');
          schedule(Math.min(pollMs * 2 ** Math.min(failures, 4), 3000));
        },
      );
    }, delay);
  }

  return {
    runOnce,
    start() {
      stopped = false;
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => 0);
      await releaseLease(redis, leaseKey, holder).catch(() => undefined);
      if (connected) await producer.disconnect().catch(() => undefined);
    },
  };
}
