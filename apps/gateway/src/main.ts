import './tracing';
import { randomUUID } from 'node:crypto';
import { createLogger, logProcessWarnings } from '@platform/logger';
import { exitOnBootFailure, listenOn, runService } from '@platform/service';
import { PLAN_NAMES, planPriority } from '@platform/speech-store';
import { connectRedis, createKafka } from '@platform/stores';
import { loadGatewayConfig } from './config';
import { createEdgeAuthentication, ownCallTimeout } from './auth/edge-authentication';
import { createEdgeLimits } from './limits/edge-limits';
import { watchOldestWait, watchQueueJobs } from './metrics/queue-jobs';
import { mountEdgeApp } from './routing/edge-app';
import { SERVICE_RESTART, createShutdownDrain } from './routing/shutdown-drain';
import { answerParseErrors } from './routing/parse-errors';
import { routeUpgrades } from './routing/upgrades';
import { createUpstreams } from './routing/upstreams';
import { createSpeechEdge } from './speech';
import { authApiKeys } from './speech/api-keys';
import { createGraphqlSubscriptions } from './subscriptions/graphql-subscriptions';

/**
 * The gateway (docs/architecture.md): each module is made by its one entry from the configuration
 * and what it needs of the others; the routes and WebSocket mounts are the edge-route table's.
 */
async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  logProcessWarnings(logger);
  const redis = await connectRedis(config.REDIS_URL);
  // Auth's revocation notices arrive on a subscriber connection of their own.
  const subscriber = await connectRedis(config.REDIS_URL);
  const kafka = createKafka(`gateway-${randomUUID().slice(0, 8)}`, config.KAFKA_BROKERS, logger);
  const upstreams = createUpstreams(config);

  const authentication = await createEdgeAuthentication(config, {
    redis,
    subscriber,
    authAgent: upstreams.auth.agent,
    logger,
  });
  const limits = createEdgeLimits(config, { redis, apiKeys: authentication.apiKeys, logger });
  const speechConnections = limits.connectionsOf('speech');
  // The speech edge reads its own settings from the gateway's; with MONGO_URL it also serves the
  // account's voices, history and user data on the speech database.
  const speech = await createSpeechEdge({
    config,
    logger,
    redis,
    authenticateApiKey: (key) => authentication.authenticateApiKey(key),
    logins: limits.webSocketLogins,
    connections: {
      open: (upgrade) =>
        speechConnections(limits.subjectOf(null, limits.addressOf(upgrade)), config.SPEECH_WS_CONNECTIONS_PER_ADDRESS),
      perAddress: config.SPEECH_WS_CONNECTIONS_PER_ADDRESS,
    },
    limits: { acquire: (identity) => limits.acquireSession(identity) },
    // Self-service speech API keys at /v1/api-keys (docs/speech.md "API keys"), kept by auth.
    apiKeys: {
      keys: authApiKeys(config.AUTH_URL, config.INTERNAL_SECRET, upstreams.auth.agent, ownCallTimeout(config)),
      forgetKey: (keyId) => authentication.apiKeys.revoke(keyId),
    },
  });
  // The speech edge's queue, and every priority the gateway gives its jobs (one per plan).
  watchQueueJobs([speech.queue], PLAN_NAMES.map(planPriority), logger);
  watchOldestWait(redis, [speech.queue], PLAN_NAMES.map(planPriority), logger);
  const subscriptions = await createGraphqlSubscriptions(config, {
    kafka,
    contentAgent: upstreams.content.agent,
    authentication,
    limits,
    logger,
  });

  // SIGTERM: new work is refused at once, the work in flight goes on up to the grace (docs/gateway.md, "Shutdown").
  const openSessions = () => subscriptions.openSessions() + speech.openSessions();
  const drain = createShutdownDrain({ graceMs: config.SHUTDOWN_GRACE_MS, openSessions });

  await runService({
    name: 'gateway',
    ...listenOn(config),
    logger,
    checks: { redis: () => redis.ping(), ...speech.checks, ...subscriptions.checks },
    mount: (app) => mountEdgeApp(app, config, { upstreams, authentication, limits, speech, drain, logger }),
    onServer(server) {
      answerParseErrors(server);
      routeUpgrades(server, {
        servers: { graphql: subscriptions.handleUpgrade, speech: speech.handleUpgrade },
        refuse: (socket, url) => drain.refuseUpgrade(socket, url),
        logger,
      });
    },
    async stopIntake() {
      const drained = await drain.close();
      logger.info({ drained, open: openSessions() }, 'gateway intake stopped');
      authentication.stop();
      // Past the grace: subscribers are told to reconnect elsewhere before their feed stops.
      await subscriptions.stopIntake(SERVICE_RESTART);
      await speech.stopIntake().catch(() => undefined);
    },
    async close() {
      await Promise.allSettled([
        redis.quit(),
        subscriber.quit(),
        ...Object.values(upstreams).map((upstream) => upstream.agent.close()),
        speech.close(),
      ]);
    },
  });
}

main().catch(exitOnBootFailure('gateway'));
