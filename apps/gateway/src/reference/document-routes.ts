import express, { type Router } from 'express';
import { asyncApi, authOpenApi, contentOpenApi, speechOpenApi, type ApiDocument } from '@platform/api-docs';

/** The published documents by path; each names this gateway (PUBLIC_URL) as its server. */
function publishedDocuments(publicUrl: string): Record<string, ApiDocument> {
  const base = publicUrl.replace(/\/+$/, '');
  const url = new URL(base);
  const openApi = (document: ApiDocument): ApiDocument => ({ ...document, servers: [{ url: base }] });
  const messages = asyncApi();
  return {
    '/openapi/speech.json': openApi(speechOpenApi()),
    '/openapi/content.json': openApi(contentOpenApi()),
    '/openapi/auth.json': openApi(authOpenApi()),
    '/asyncapi.json': {
      ...messages,
      // The WebSocket endpoints are the gateway's own; the Kafka servers stay as the document says
      // (the brokers are internal to a deployment, not reachable through the gateway).
      servers: {
        ...(isObject(messages.servers) ? messages.servers : {}),
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

/**
 * `GET /openapi/{speech,content,auth}.json` (OpenAPI 3.1) and `GET /asyncapi.json` (AsyncAPI 3.0):
 * public, built once at boot, readable from any origin so integrators' tools (code generators,
 * editors) can load them straight from the platform.
 */
export function documentRoutes(publicUrl: string): Router {
  const router = express.Router();
  for (const [route, document] of Object.entries(publishedDocuments(publicUrl))) {
    const body = JSON.stringify(document);
    router.get(route, (_req, res) => {
      res
        .set({ 'access-control-allow-origin': '*', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' })
        .type('application/json')
        .send(body);
    });
  }
  return router;
}
