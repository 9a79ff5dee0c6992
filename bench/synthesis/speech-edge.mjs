// The gateway's speech edge (apps/gateway/dist/speech) served on its own small HTTP server, every request
// as one fixed identity, so the speech benchmarks measure synthesis and delivery, not authentication or
// plan limits. bench/synthesis runs it in-process; bench/capacity in a process of its own (edge-server.mjs).
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { createSpeechEdge } = require(path.join(root, 'apps/gateway/dist/speech/index.js'));
const { speechConfig } = require(path.join(root, 'apps/gateway/dist/speech/speech-config.js'));
const express = require('express');
const pino = require('pino');

/**
 * Listens on 127.0.0.1:`port`; `config` holds the edge's settings that differ from the gateway's defaults
 * (`speechConfig` checks them and fills in the rest, as the gateway does), `redis` an ioredis client, `apiKey`
 * the key WebSocket sessions send. Answers `/readyz`. `stop()` ends the edge and the server.
 */
export async function serveSpeechEdge({ port, config, redis, apiKey, identity, logLevel = 'silent' }) {
  const edge = await createSpeechEdge({
    config: speechConfig(config),
    logger: pino({ level: logLevel }),
    redis,
    authenticateApiKey: async (key) => (key === apiKey ? identity : null),
    limits: { acquire: async () => () => undefined },
  });
  const app = express();
  app.get('/readyz', (_req, res) => res.json({ status: 'ok' }));
  app.use('/v1', (req, _res, next) => {
    req.identity = identity;
    next();
  });
  app.use('/v1', edge.router);
  const server = http.createServer(app);
  server.on('upgrade', (req, socket, head) => {
    if (!edge.handleUpgrade(req, socket, head)) socket.destroy();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    async stop() {
      await edge.stopIntake();
      await edge.close();
      server.closeAllConnections();
      server.close();
    },
  };
}
