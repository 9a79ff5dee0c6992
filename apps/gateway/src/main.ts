import './tracing';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { WebSocketServer } from 'ws';
import { createLogger, requestLogger } from '@platform/logger';
import type { Identity } from '@platform/identity';
import { exitOnBootFailure, runService, withTimeout } from '@platform/service';
import { PLAN_NAMES, planName, planPriority } from '@platform/speech-store';
import { connectRedis, createKafka } from '@platform/stores';
import { loadGatewayConfig } from './config';
import { createApiKeyResolver } from './auth/api-key-cache';
import { apiKeyIdentity } from './auth/authenticate';
import { authApiKeyLookup } from './auth/api-key-lookup';
import { listenForApiKeyRevocations } from './auth/api-key-revocations';
import { oauthResourceVerifier } from './auth/oauth-resource-verifier';
import { createRevocationWatch, listenForTokenRevocations, redisRevocationCheck } from './auth/token-revocations';
import { createAdmission } from './limits/admission';
import { createConcurrencyLimiter } from './limits/concurrency';
import { createConnectionSlots } from './limits/connection-slots';
import { upgradeClientAddress } from './limits/client-address';
import { proxyTrust } from './limits/trusted-proxies';
import { createFailedCredentialBudget } from './limits/failed-credentials';
import { createPlanLimiter } from './limits/limit-middleware';
import { anonymousSubject, defaultPlanTable, limitSubject, planTableWithOverrides } from './limits/plan-limits';
import { createRateLimiter } from './limits/rate-limiter';
import { createWebSocketLogins } from './limits/websocket-logins';
import { mountEdgeRoutes } from './routing/edge-routes';
import {
  countConnections,
  countGraphqlWsWrite,
  recordLimitRefusal,
  watchConsumerLag,
  watchSubscriptions,
} from './metrics/gateway-metrics';
import { watchOldestWait, watchQueueJobs } from './metrics/queue-jobs';
import { queueDashboardRoutes } from './admin/queue-dashboard';
import { DEFAULT_PLAYGROUND_DIR, playgroundRoutes } from './playground/playground-routes';
import { referenceRoutes } from './reference/reference-routes';
import { SERVICE_RESTART, createShutdownDrain } from './routing/shutdown-drain';
import { routeUpgrades } from './routing/upgrades';
import { createSpeechEdge } from './speech';
import { authApiKeys } from './speech/api-keys';
import { createUpstream } from './routing/upstream';
import { contentFieldFetcher } from './subscriptions/content-fetcher';
import { serveSubscriptions } from './subscriptions/graphql-ws-server';
import { SubscriptionHub } from './subscriptions/hub';
import { createSubscriberLimits } from './subscriptions/subscriber-limits';
import { startContentFeed } from './subscriptions/kafka-feed';
import { buildSubscriptionSchema } from './subscriptions/subscription-schema';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const plans = planTableWithOverrides(
    defaultPlanTable({ rps: config.ENTERPRISE_RPS, concurrency: config.ENTERPRISE_CONCURRENCY }),
    config.PLAN_LIMITS_JSON,
  );
  const redis = await connectRedis(config.REDIS_URL);
  const revocations = await connectRedis(config.REDIS_URL);
  const kafka = createKafka(`gateway-${randomUUID().slice(0, 8)}`, config.KAFKA_BROKERS, logger);

  const bounds = { timeoutMs: config.UPSTREAM_TIMEOUT_MS, connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS };
  const content = createUpstream('content', config.CONTENT_URL, bounds);
  const auth = createUpstream('auth', config.AUTH_URL, bounds);

  const apiKeys = createApiKeyResolver(
    authApiKeyLookup(config.AUTH_URL, config.INTERNAL_SECRET, auth.agent, Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000)),
    { ttlMs: config.API_KEY_CACHE_TTL_MS, unknownTtlMs: config.API_KEY_UNKNOWN_CACHE_MS },
  );
  await listenForApiKeyRevocations(revocations, apiKeys, logger);
  // graphql-ws connections opened with a token that auth then revokes are closed (docs/gateway.md).
  const tokenRevocations = createRevocationWatch(redisRevocationCheck(redis));
  const revocationSweeps = await listenForTokenRevocations(revocations, tokenRevocations, {
    intervalMs: config.WS_REVOCATION_SWEEP_MS,
    logger,
  });
  const isRevoked = redisRevocationCheck(redis);
  const authDeps = {
    apiKeys,
    isTokenRevoked: async (jti: string) => (await isRevoked([jti]))[0] === true,
    verifyAccessToken: oauthResourceVerifier({
      publicUrl: config.PUBLIC_URL,
      authUrl: config.AUTH_URL,
      redis,
      jwksTimeoutMs: Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000),
    }),
  };
  const acquireSlot = createConcurrencyLimiter(redis, { prefix: config.RATE_LIMIT_PREFIX });
  const rate = createRateLimiter(redis, config.RATE_LIMIT_PREFIX);
  const limiter = createPlanLimiter(
    plans,
    rate.consume,
    acquireSlot,
    createAdmission(redis, { prefix: config.RATE_LIMIT_PREFIX }),
  );
  const failedCredentials = createFailedCredentialBudget(plans, rate);
  // WebSocket logins (graphql-ws, stream-input) refused for their credentials pay from the same budget.
  const addressOf = upgradeClientAddress(config.TRUSTED_PROXIES);
  const webSocketLogins = createWebSocketLogins({
    failures: failedCredentials,
    apiKeys,
    addressOf,
    logger,
  });
  // WebSocket connections per client address and account, across replicas (docs/security.md "WebSocket limits").
  const subjectOf = (identity: Identity | null, address: string) =>
    (identity ? limitSubject(identity, address, plans) : anonymousSubject(address, plans)).key;
  const speechConnections = createConnectionSlots(redis, { prefix: `${config.RATE_LIMIT_PREFIX}:ws:speech`, logger });

  // The speech edge reads its own settings (SpeechEdgeConfig) from the gateway's; with MONGO_URL it
  // also serves the account's voices, history and user data on the speech database.
  const speech = await createSpeechEdge({
    config,
    logger,
    redis,
    authenticateApiKey: async (key) => {
      const record = await apiKeys.resolve(key);
      return record ? apiKeyIdentity(record) : null;
    },
    logins: webSocketLogins,
    connections: {
      open: (upgrade) =>
        speechConnections(subjectOf(null, addressOf(upgrade)), config.SPEECH_WS_CONNECTIONS_PER_ADDRESS),
      perAddress: config.SPEECH_WS_CONNECTIONS_PER_ADDRESS,
    },
    limits: {
      acquire: async (identity) => {
        const lease = await acquireSlot(limitSubject(identity, 'websocket', plans));
        if (!lease) recordLimitRefusal(planName(identity.plan), 'concurrency');
        return lease ? () => lease.release() : null;
      },
    },
    // Self-service speech API keys at /v1/api-keys (docs/speech.md "API keys"), kept by auth.
    apiKeys: {
      keys: authApiKeys(
        config.AUTH_URL,
        config.INTERNAL_SECRET,
        auth.agent,
        Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000),
      ),
      forgetKey: (keyId) => apiKeys.revoke(keyId),
    },
  });

  const schema = buildSubscriptionSchema();
  const hub = new SubscriptionHub({
    schema,
    fetchField: contentFieldFetcher(
      config.CONTENT_URL,
      config.INTERNAL_SECRET,
      content.agent,
      config.SUBSCRIPTION_FETCH_TIMEOUT_MS,
    ),
    logger,
    capacity: config.SUBSCRIBER_BUFFER,
  });
  const feed = await startContentFeed({
    kafka,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    groupId: `gateway-subscriptions-${randomUUID()}`,
    logger,
    onEvent: (event) => hub.publish(event),
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  countConnections(wss, 'graphql');
  watchSubscriptions(() => hub.stats().subscribers);
  watchConsumerLag(() => feed.lag(), logger);
  // The speech edge's queue, and every priority the gateway gives its jobs (one per plan).
  watchQueueJobs([speech.queue], PLAN_NAMES.map(planPriority), logger);
  watchOldestWait(redis, [speech.queue], PLAN_NAMES.map(planPriority), logger);
  const subscriptions = serveSubscriptions(wss, {
    schema,
    hub,
    authDeps,
    revocations: tokenRevocations,
    logins: webSocketLogins,
    publicUrl: config.PUBLIC_URL,
    maxSubscriptionsPerConnection: config.MAX_SUBSCRIPTIONS_PER_CONNECTION,
    onWrite: countGraphqlWsWrite,
    limits: {
      maxCost: config.SUBSCRIPTION_MAX_COST,
      maxConnectionCost: config.SUBSCRIPTION_CONNECTION_MAX_COST,
      maxFetchesPerEvent: config.SUBSCRIPTION_CONNECTION_MAX_FETCHES,
    },
    subscribers: createSubscriberLimits({
      openConnection: createConnectionSlots(redis, { prefix: `${config.RATE_LIMIT_PREFIX}:ws:graphql`, logger }),
      addressOf,
      subjectOf,
      caps: {
        connectionsPerAddress: config.GRAPHQL_WS_CONNECTIONS_PER_ADDRESS,
        connectionsPerAccount: config.GRAPHQL_WS_CONNECTIONS_PER_ACCOUNT,
        subscriptionsPerAddress: config.SUBSCRIPTIONS_PER_ADDRESS,
        subscriptionsPerAccount: config.SUBSCRIPTIONS_PER_ACCOUNT,
        fetchesPerAddress: config.SUBSCRIPTION_ADDRESS_MAX_FETCHES,
        fetchesPerAccount: config.SUBSCRIPTION_ACCOUNT_MAX_FETCHES,
      },
    }),
    messageRate: { perSecond: config.GRAPHQL_WS_MESSAGES_PER_SECOND, burst: config.GRAPHQL_WS_MESSAGE_BURST },
    logger,
  });

  // SIGTERM: new work is refused at once, the work in flight goes on up to the grace (docs/gateway.md, "Shutdown").
  const drain = createShutdownDrain({
    graceMs: config.SHUTDOWN_GRACE_MS,
    openSessions: () => wss.clients.size + speech.openSessions(),
  });

  await runService({
    name: 'gateway',
    host: config.HOST,
    port: config.PORT,
    metricsPort: config.METRICS_PORT,
    logger,
    checks: {
      redis: () => redis.ping(),
      ...speech.checks,
      kafka: async () => {
        await withTimeout(feed.ready, 2_000, 'content feed');
        if (!feed.isReady()) throw new Error('content feed stopped');
      },
    },
    mount(app) {
      app.set('trust proxy', proxyTrust(config.TRUSTED_PROXIES));
      app.use(requestLogger(logger));
      app.use(drain.requests);
      mountEdgeRoutes(app, {
        publicUrl: config.PUBLIC_URL,
        internalSecret: config.INTERNAL_SECRET,
        maxBodyBytes: config.MAX_BODY_BYTES,
        maxGraphqlBodyBytes: config.MAX_GRAPHQL_BODY_BYTES,
        logger,
        authDeps,
        limiter,
        failedCredentials,
        content,
        auth,
        speech: [speech.router],
        speechV2: [speech.routerV2],
        pages: config.PLAYGROUND_CLIENT_ID
          ? playgroundRoutes({
              dir: config.PLAYGROUND_DIR || DEFAULT_PLAYGROUND_DIR,
              publicUrl: config.PUBLIC_URL,
              clientId: config.PLAYGROUND_CLIENT_ID,
              logger,
            })
          : null,
        dashboard: queueDashboardRoutes({
          queues: [speech.queue],
          publicUrl: config.PUBLIC_URL,
          authDeps,
          failedCredentials,
          logger,
          ...(config.QUEUE_DASHBOARD_CLIENT_ID
            ? {
                signIn: {
                  authUrl: config.AUTH_URL,
                  clientId: config.QUEUE_DASHBOARD_CLIENT_ID,
                  timeoutMs: Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000),
                },
              }
            : {}),
        }),
        reference: referenceRoutes({
          publicUrl: config.PUBLIC_URL,
          dir: path.join(config.PLAYGROUND_DIR || DEFAULT_PLAYGROUND_DIR, 'reference'),
          logger,
        }),
      });
    },
    onServer(server) {
      routeUpgrades(server, {
        graphql: wss,
        speech: (req, socket, head) => speech.handleUpgrade(req, socket, head),
        refuse: (socket, url) => drain.refuseUpgrade(socket, url),
        logger,
      });
    },
    async stopIntake() {
      const drained = await drain.close();
      logger.info({ drained, open: wss.clients.size + speech.openSessions() }, 'gateway intake stopped');
      // Past the grace: subscribers are told to reconnect elsewhere before their feed stops.
      for (const socket of wss.clients) socket.close(SERVICE_RESTART.code, SERVICE_RESTART.reason);
      revocationSweeps.stop();
      await feed.stop();
      hub.closeAll();
      await Promise.resolve(subscriptions.dispose()).catch(() => undefined);
      await speech.stopIntake().catch(() => undefined);
    },
    async close() {
      await Promise.allSettled([
        redis.quit(),
        revocations.quit(),
        content.agent.close(),
        auth.agent.close(),
        speech.close(),
      ]);
    },
  });
}

main().catch(exitOnBootFailure('gateway'));
