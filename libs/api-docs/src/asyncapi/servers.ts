import type { JsonValue } from '../document';

/**
 * Where the message interfaces are reached, as placeholders: the gateway serves the document with
 * `gateway` set to its own public host (PUBLIC_URL) and `kafka` to the brokers it is configured with
 * (KAFKA_BROKERS; apps/gateway/src/reference/document-routes.ts).
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
