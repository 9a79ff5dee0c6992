import { env } from '@platform/config';
import { z } from 'zod';

/**
 * The GraphQL subscriptions' settings (docs/gateway.md "Subscriptions", docs/security.md "WebSocket
 * limits"), each default written here once: the gateway's configuration takes them into its own (config.ts).
 */
export const subscriptionsConfigShape = {
  /** Prefix of the content topics (libs/events); lets test runs share one Kafka. */
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  /** Events a subscriber may have queued before its connection is closed (room for a Kafka fetch's burst). */
  SUBSCRIBER_BUFFER: env.positiveInt(256),
  /** Active subscriptions per graphql-ws connection. */
  MAX_SUBSCRIPTIONS_PER_CONNECTION: env.positiveInt(50),
  /** Cost of one subscription per event, in libs/graphql-schema's cost model (docs/gateway.md). */
  SUBSCRIPTION_MAX_COST: env.positiveInt(500),
  /** Cost of all of one graphql-ws connection's active subscriptions together, per event. */
  SUBSCRIPTION_CONNECTION_MAX_COST: env.positiveInt(2_000),
  /** Nested fetches from content one event may cause for one connection's subscriptions. */
  SUBSCRIPTION_CONNECTION_MAX_FETCHES: env.positiveInt(20),
  /**
   * Nested fetches one event may cause for all of one client address's anonymous connections, or
   * one account's connections, together on a replica (docs/security.md "WebSocket limits").
   */
  SUBSCRIPTION_ADDRESS_MAX_FETCHES: env.positiveInt(40),
  SUBSCRIPTION_ACCOUNT_MAX_FETCHES: env.positiveInt(40),
  /**
   * graphql-ws connections per client address (anonymous, and every socket until its
   * `connection_init` is accepted) and per account, across replicas; beyond them, close 4429.
   */
  GRAPHQL_WS_CONNECTIONS_PER_ADDRESS: env.positiveInt(10),
  GRAPHQL_WS_CONNECTIONS_PER_ACCOUNT: env.positiveInt(20),
  /** Active subscriptions over all of a client address's anonymous connections, or an account's, across replicas. */
  SUBSCRIPTIONS_PER_ADDRESS: env.positiveInt(100),
  SUBSCRIPTIONS_PER_ACCOUNT: env.positiveInt(200),
  /** Messages a graphql-ws socket may send per second, and at once (token bucket); beyond them, close 4429. */
  GRAPHQL_WS_MESSAGES_PER_SECOND: env.positiveInt(20),
  GRAPHQL_WS_MESSAGE_BURST: env.positiveInt(100),
  /** Bound for the nested-field fetch a subscription event may need from content. */
  SUBSCRIPTION_FETCH_TIMEOUT_MS: env.positiveInt(3_000),
};

/** The subscriptions' settings as parsed, with the gateway's address and content's it also reads. */
export type SubscriptionsConfig = z.output<z.ZodObject<typeof subscriptionsConfigShape>> & {
  PUBLIC_URL: string;
  CONTENT_URL: string;
  INTERNAL_SECRET: string;
};
