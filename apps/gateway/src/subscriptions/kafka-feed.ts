import type { Kafka, Consumer, Admin, EachMessagePayload } from 'kafkajs';
import { contentTopics, parseContentEvent, EventParseError, type ContentEvent } from '@platform/events';
import type { Logger } from '@platform/logger';
import { contextFrom, inSpan, SpanKind } from '@platform/tracing';

interface ContentFeedOptions {
  kafka: Kafka;
  topicPrefix: string;
  /** Unique per process: every replica reads every event (fan-out, not work sharing). */
  groupId: string;
  logger: Logger;
  onEvent: (event: ContentEvent) => Promise<void>;
  /** How many recent event ids are remembered to drop redeliveries. */
  dedupeWindow?: number;
}

interface ContentFeed {
  /** Resolves once the consumer has joined and owns its partitions. */
  ready: Promise<void>;
  isReady(): boolean;
  /** Messages on each partition not yet consumed (the high watermark read now, minus the next offset to consume). */
  lag(): Promise<PartitionLag[]>;
  stop(): Promise<void>;
}

interface PartitionLag {
  topic: string;
  partition: number;
  lag: number;
}

const PARTITIONS = 3;
/** Longest pause between attempts to start a stopped consumer again. */
const RESTART_MAX_MS = 10_000;

async function ensureTopics(admin: Admin, topics: string[]): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !existing.has(t));
  if (missing.length === 0) return;
  try {
    await admin.createTopics({
      topics: missing.map((topic) => ({ topic, numPartitions: PARTITIONS })),
      waitForLeaders: true,
    });
  } catch (err) {
    // Another process (content, another replica) may have created them at the same moment.
    const now = new Set(await admin.listTopics());
    if (missing.some((t) => !now.has(t))) throw err;
  }
}

/**
 * Topics just created (by us, content or another replica) answer "not the leader" or "unknown
 * partition" for a moment while leaders are elected; that settles within seconds.
 */
async function retryWhileSettling(logger: Logger, work: () => Promise<void>, deadlineMs = 30_000): Promise<void> {
  const started = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      await work();
      return;
    } catch (err) {
      const retriable =
        (err as { retriable?: unknown }).retriable === true ||
        /leader|unknown topic|does not host/i.test(String((err as Error).message));
      if (!retriable || Date.now() - started > deadlineMs) throw err;
      logger.info({ attempt, reason: (err as Error).message }, 'content topics settling; retrying');
      await new Promise((r) => setTimeout(r, Math.min(200 * attempt, 2000)));
    }
  }
}

/**
 * Consumes the content topics for this replica's subscriptions. The consumer group is new for
 * every process and is positioned at the end of each partition before it joins, so a replica
 * (re)starting delivers only events that happen after it is up, never old ones as if new. The
 * relay delivers at least once; ids seen recently are dropped. Partitions are consumed in
 * parallel, each in order, so events of one entity (one key, one partition) stay in order. A
 * consumer kafkajs gives up on (a crash it does not restart) is replaced by a new one of the same
 * group, so the feed outlives a broker's restart however it ends.
 */
export async function startContentFeed(options: ContentFeedOptions): Promise<ContentFeed> {
  const { kafka, logger } = options;
  const topics = Object.values(contentTopics(options.topicPrefix));
  const admin = kafka.admin();
  await admin.connect();
  // The next offset to consume per `topic:partition`: the end at the start, then past each message read.
  const next = new Map<string, bigint>();
  await retryWhileSettling(logger, async () => {
    await ensureTopics(admin, topics);
    for (const topic of topics) {
      const offsets = await admin.fetchTopicOffsets(topic);
      for (const o of offsets) next.set(`${topic}:${o.partition}`, BigInt(o.high));
      await admin.setOffsets({
        groupId: options.groupId,
        topic,
        partitions: offsets.map((o) => ({ partition: o.partition, offset: o.high })),
      });
    }
  });

  let joined = false;
  let stopped = false;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const window = options.dedupeWindow ?? 50_000;
  const seen = new Set<string>();
  const remember = (id: string): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    if (seen.size > window) seen.delete(seen.values().next().value!);
    return true;
  };

  const eachMessage = async ({ message, topic, partition }: EachMessagePayload): Promise<void> => {
    next.set(`${topic}:${partition}`, BigInt(message.offset) + 1n);
    let event: ContentEvent;
    try {
      event = parseContentEvent(message.value);
    } catch (err) {
      if (err instanceof EventParseError) {
        logger.warn(
          { topic, partition, offset: message.offset, reason: err.message },
          'skipping malformed content event',
        );
        return;
      }
      throw err;
    }
    if (!remember(event.id)) return;
    try {
      // A child of content's publish span (W3C Trace Context in the message headers): the write's trace goes on to its subscribers.
      const attributes = {
        'messaging.system': 'kafka',
        'messaging.destination.name': topic,
        'messaging.message.id': event.id,
        'messaging.kafka.message.key': event.subject,
      };
      await inSpan(
        `${topic} deliver`,
        { kind: SpanKind.CONSUMER, parent: contextFrom(message.headers), attributes },
        () => options.onEvent(event),
      );
    } catch (err) {
      logger.error({ err, event: event.id }, 'content event fan-out failed');
    }
  };

  let consumer: Consumer | undefined;
  let restarts = 0;
  let restartTimer: NodeJS.Timeout | undefined;

  /** A consumer of this process's group, consuming from the group's committed offsets (the end, at the first start). */
  async function consume(): Promise<void> {
    const current = kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      maxWaitTimeInMs: 250,
      allowAutoTopicCreation: false,
    });
    consumer = current;
    current.on(current.events.GROUP_JOIN, () => {
      joined = true;
      restarts = 0;
      markReady();
    });
    current.on(current.events.CRASH, (event) => {
      logger.error({ err: event.payload.error, restart: event.payload.restart }, 'content feed consumer crashed');
      // kafkajs restarts after retriable crashes (and rejoins: GROUP_JOIN again). After any other (a broker
      // restart can end in one) it stops for good; the feed then starts a new consumer of the same group,
      // which resumes from the group's committed offsets, so events published meanwhile still arrive (once:
      // redelivered ones are dropped by id). /readyz says `content feed stopped` until it has joined.
      if (event.payload.restart || consumer !== current) return;
      joined = false;
      scheduleRestart();
    });
    await current.connect();
    await current.subscribe({ topics, fromBeginning: false });
    await current.run({ partitionsConsumedConcurrently: PARTITIONS * topics.length, eachMessage });
  }

  function scheduleRestart(): void {
    if (stopped) return;
    restarts += 1;
    clearTimeout(restartTimer);
    restartTimer = setTimeout(
      () => {
        void (async () => {
          await consumer?.disconnect().catch(() => undefined);
          if (stopped) return;
          try {
            await consume();
            logger.warn({ restarts }, 'content feed consumer started again');
          } catch (err) {
            logger.error({ err, restarts }, 'content feed consumer could not start again; retrying');
            scheduleRestart();
          }
        })();
      },
      Math.min(1000 * restarts, RESTART_MAX_MS),
    );
  }

  await consume();

  return {
    ready,
    isReady: () => joined,
    async lag() {
      const ends = await Promise.all(
        topics.map(async (topic) => ({ topic, offsets: await admin.fetchTopicOffsets(topic) })),
      );
      return ends.flatMap(({ topic, offsets }) =>
        offsets.map((o) => {
          const high = BigInt(o.high);
          const position = next.get(`${topic}:${o.partition}`) ?? high;
          return { topic, partition: o.partition, lag: Number(high > position ? high - position : 0n) };
        }),
      );
    },
    async stop() {
      stopped = true;
      clearTimeout(restartTimer);
      await consumer?.disconnect().catch(() => undefined);
      // The group belonged to this process only; leave nothing behind in Kafka.
      await admin.deleteGroups([options.groupId]).catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
    },
  };
}
