import type { JsonValue } from '../document';

/**
 * Where the message interfaces are reached. The gateway serves the document with `gateway` set to its
 * own public host (PUBLIC_URL); the Kafka brokers belong to a deployment and are not reachable through
 * the gateway, so `kafka` names the local stack's default address.
 */
export const servers: Record<string, JsonValue> = {
  gateway: {
    host: '127.0.0.1:8080',
    protocol: 'ws',
    description: "The platform's gateway: the speech WebSocket and the graphql-ws endpoint.",
  },
  kafka: {
    host: '127.0.0.1:9092',
    protocol: 'kafka',
    protocolVersion: '3.9',
    description:
      "The deployment's Kafka cluster (KAFKA_BROKERS), read by the gateway and other consumers of content events.",
  },
};
