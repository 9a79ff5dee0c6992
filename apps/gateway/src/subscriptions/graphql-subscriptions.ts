import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import type { Agent } from 'undici';
import { WebSocketServer } from 'ws';
import type { Logger } from '@platform/logger';
import { withTimeout } from '@platform/service';
import type { EdgeAuthentication } from '../auth/edge-authentication';
import type { EdgeLimits } from '../limits/edge-limits';
import {
  countConnections,
  countGraphqlWsWrite,
  watchConsumerLag,
  watchSubscriptions,
} from '../metrics/gateway-metrics';
import type { UpgradeHandler } from '../routing/upgrades';
import { contentFieldFetcher } from './content-fetcher';
import { serveSubscriptions } from './graphql-ws-server';
import { SubscriptionHub } from './hub';
import { startContentFeed } from './kafka-feed';
import { createSubscriberLimits } from './subscriber-limits';
import type { SubscriptionsConfig } from './subscriptions-config';
import { buildSubscriptionSchema } from './subscription-schema';

interface GraphqlSubscriptions {
  /** Takes a `/graphql` upgrade (the edge-route table's WebSocket mount). */
  handleUpgrade: UpgradeHandler;
  /** Readiness: the content feed has joined its topics and runs. */
  checks: Record<string, () => Promise<unknown>>;
  openSessions(): number;
  /** Past the shutdown's grace: every socket closed with `code`, the feed stopped, the hub emptied. */
  stopIntake(close: { code: number; reason: string }): Promise<void>;
}

/**
 * GraphQL subscriptions over graphql-ws at `/graphql` (docs/gateway.md "Subscriptions"): the content
 * events from Kafka fan out through the hub to the subscribers, fields an event does not carry fetched
 * from content, each connection within its cost, fetch and per-address/per-account limits.
 */
export async function createGraphqlSubscriptions(
  config: SubscriptionsConfig,
  deps: {
    kafka: Kafka;
    contentAgent: Agent;
    authentication: EdgeAuthentication;
    limits: EdgeLimits;
    logger: Logger;
  },
): Promise<GraphqlSubscriptions> {
  const { limits, logger } = deps;
  const schema = buildSubscriptionSchema();
  const hub = new SubscriptionHub({
    schema,
    fetchField: contentFieldFetcher(
      config.CONTENT_URL,
      config.INTERNAL_SECRET,
      deps.contentAgent,
      config.SUBSCRIPTION_FETCH_TIMEOUT_MS,
    ),
    logger,
    capacity: config.SUBSCRIBER_BUFFER,
  });
  const feed = await startContentFeed({
    kafka: deps.kafka,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    groupId: `gateway-subscriptions-${randomUUID()}`,
    logger,
    onEvent: (event) => hub.publish(event),
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  countConnections(wss, 'graphql');
  watchSubscriptions(() => hub.stats().subscribers);
  watchConsumerLag(() => feed.lag(), logger);
  const server = serveSubscriptions(wss, {
    schema,
    hub,
    authDeps: deps.authentication.authDeps,
    revocations: deps.authentication.tokenRevocations,
    logins: limits.webSocketLogins,
    publicUrl: config.PUBLIC_URL,
    maxSubscriptionsPerConnection: config.MAX_SUBSCRIPTIONS_PER_CONNECTION,
    onWrite: countGraphqlWsWrite,
    limits: {
      maxCost: config.SUBSCRIPTION_MAX_COST,
      maxConnectionCost: config.SUBSCRIPTION_CONNECTION_MAX_COST,
      maxFetchesPerEvent: config.SUBSCRIPTION_CONNECTION_MAX_FETCHES,
    },
    subscribers: createSubscriberLimits({
      openConnection: limits.connectionsOf('graphql'),
      addressOf: limits.addressOf,
      subjectOf: limits.subjectOf,
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
  return {
    handleUpgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
      return true;
    },
    checks: {
      kafka: async () => {
        await withTimeout(feed.ready, 2_000, 'content feed');
        if (!feed.isReady()) throw new Error('content feed stopped');
      },
    },
    openSessions: () => wss.clients.size,
    async stopIntake(close) {
      // Subscribers are told to reconnect elsewhere before their feed stops.
      for (const socket of wss.clients) socket.close(close.code, close.reason);
      await feed.stop();
      hub.closeAll();
      await Promise.resolve(server.dispose()).catch(() => undefined);
    },
  };
}
