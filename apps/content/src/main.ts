import './tracing';
import { randomUUID } from 'node:crypto';
import { createContentEventProducer } from '@platform/events';
import { createLogger, logProcessWarnings, requestLogger } from '@platform/logger';
import { exitOnBootFailure, listenOn, runService } from '@platform/service';
import { connectMongo, connectRedis, createKafka, storeReadiness } from '@platform/stores';
import { createAuthClient } from './auth-client/auth-client';
import { createUserMemo } from './cache/user-memo';
import { createVersionedCache } from './cache/versioned-cache';
import { loadContentConfig } from './config';
import type { ContentDeps } from './domain/deps';
import { mountContent } from './http/content-app';
import { createModels, syncIndexes, type UserDoc } from './models';
import { watchOutboxBacklog } from './outbox/outbox-metrics';
import { createRelay } from './outbox/relay';
import { createCursorCodec } from './graphql/cursors';
import { graphqlMount } from './graphql/graphql-mount';

async function main(): Promise<void> {
  const config = loadContentConfig();
  const logger = createLogger('content', config.LOG_LEVEL);
  logProcessWarnings(logger);
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const redis = await connectRedis(config.REDIS_URL);
  const models = createModels(mongo);
  await syncIndexes(models);
  const cache = createVersionedCache(redis, config.REDIS_PREFIX);
  // Kafka is not a readiness dependency: writes go to the outbox and the relay publishes when
  // the broker answers (that is the outbox's purpose).
  const kafka = createKafka('content', config.KAFKA_BROKERS, logger);
  // This process's outbox records carry it: its relay hears of them from the commit, not the change stream.
  const outboxOrigin = randomUUID();
  const relay = createRelay({
    models,
    createProducer: () => createContentEventProducer(kafka),
    logger,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    pollMs: config.OUTBOX_POLL_MS,
    lingerMs: config.OUTBOX_LINGER_MS,
    origin: outboxOrigin,
  });
  // Collection metadata: no scan of the outbox on each scrape, however long the backlog.
  watchOutboxBacklog(() => models.outbox.estimatedDocumentCount());
  const deps: ContentDeps = {
    models,
    auth: createAuthClient(config.AUTH_URL, config.INTERNAL_SECRET),
    invalidate: (type) =>
      cache.invalidate(type).catch((err: unknown) => logger.warn({ err: String(err) }, 'cache invalidation failed')),
    // A write committed here is published at once, not at the next poll.
    outboxCommitted: () => relay.wake(),
    outboxOrigin,
    users: createUserMemo({
      readVersion: (type) => cache.version(type),
      findUsers: (ids) => models.users.find({ _id: { $in: ids } }).lean<UserDoc[]>(),
      maxEntries: config.USER_MEMO_ENTRIES,
    }),
  };
  const graphql = await graphqlMount({
    deps,
    redis,
    cache,
    redisPrefix: config.REDIS_PREFIX,
    logger,
    cursors: createCursorCodec(config.INTERNAL_SECRET),
    maxCost: config.GRAPHQL_MAX_COST,
    introspection: config.GRAPHQL_INTROSPECTION,
  });
  await runService({
    name: 'content',
    ...listenOn(config),
    logger,
    checks: storeReadiness(mongo, redis),
    mount(app) {
      app.use(requestLogger(logger));
      mountContent(app, { deps, logger, internalSecret: config.INTERNAL_SECRET, mountGraphQL: graphql.mount });
    },
    async stopIntake() {
      await relay.stop();
    },
    async close() {
      await graphql.stop();
      await Promise.allSettled([mongo.close(), redis.quit()]);
    },
  });
  if (config.OUTBOX_RELAY) void relay.start();
}

main().catch(exitOnBootFailure('content'));
