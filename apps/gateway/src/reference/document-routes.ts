import express, { type Router } from 'express';
import { asyncApi, authOpenApi, contentOpenApi, speechOpenApi, type ApiDocument } from '@platform/api-docs';
import { typeDefs } from '@platform/graphql-schema';

/** Where the platform runs, as its documents name it: the gateway's address and the Kafka brokers it reads. */
export interface PublishedServers {
  publicUrl: string;
  /** KAFKA_BROKERS, as configured (host:port each). */
  kafkaBrokers: readonly string[];
}

/** Where the GraphQL schema (SDL) is published, beside the endpoint it describes. */
export const GRAPHQL_SDL_PATH = '/graphql/schema.graphql';

/**
 * The published documents by path; each names this gateway (PUBLIC_URL) as its server, and the
 * AsyncAPI document the Kafka brokers the platform really uses (KAFKA_BROKERS).
 */
function publishedDocuments({ publicUrl, kafkaBrokers }: PublishedServers): Record<string, ApiDocument> {
  const base = publicUrl.replace(/\/+$/, '');
  const url = new URL(base);
  const openApi = (document: ApiDocument): ApiDocument => ({ ...document, servers: [{ url: base }] });
  const messages = asyncApi();
  const documented = isObject(messages.servers) ? messages.servers : {};
  const kafka = isObject(documented.kafka) ? documented.kafka : {};
  return {
    '/openapi/speech.json': openApi(speechOpenApi()),
    '/openapi/content.json': openApi(contentOpenApi()),
    '/openapi/auth.json': openApi(authOpenApi()),
    '/asyncapi.json': {
      ...messages,
      // The WebSocket endpoints are the gateway's own; Kafka is the cluster this platform runs on, named
      // by its first bootstrap broker (AsyncAPI gives a server one host), all of them in the description.
      servers: {
        ...documented,
        kafka: {
          ...kafka,
          host: kafkaBrokers[0] ?? '',
          description: `This platform's Kafka cluster (KAFKA_BROKERS: ${kafkaBrokers.join(', ')}), read by the gateway and other consumers of content events; internal to the deployment, not reachable through the gateway.`,
        },
        gateway: {
          host: url.host,
          protocol: url.protocol === 'https:' ? 'wss' : 'ws',
          ...(url.pathname !== '/' ? { pathname: url.pathname } : {}),
          description: "This platform's gateway: the speech WebSocket and the graphql-ws endpoint.",
        },
      },
    },
  };
}

function isObject(value: unknown): value is Record<string, ApiDocument[string]> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const PUBLIC_DOCUMENT = {
  'access-control-allow-origin': '*',
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
} as const;

/** The SDL as written once (libs/graphql-schema), which content and the gateway's subscriptions both serve. */
const SDL = `${typeDefs.replace(/^ {2}/gm, '').trim()}\n`;

/**
 * `GET /openapi/{speech,content,auth}.json` (OpenAPI 3.1), `GET /asyncapi.json` (AsyncAPI 3.0) and
 * `GET /graphql/schema.graphql` (the GraphQL SDL, text/plain): public, built once at boot, readable
 * from any origin so integrators' tools (code generators, editors) can load them straight from the platform.
 */
export function documentRoutes(servers: PublishedServers): Router {
  const router = express.Router();
  for (const [route, document] of Object.entries(publishedDocuments(servers))) {
    const body = JSON.stringify(document);
    router.get(route, (_req, res) => {
      res.set(PUBLIC_DOCUMENT).type('application/json').send(body);
    });
  }
  router.get(GRAPHQL_SDL_PATH, (_req, res) => {
    res.set(PUBLIC_DOCUMENT).type('text/plain; charset=utf-8').send(SDL);
  });
  return router;
}
