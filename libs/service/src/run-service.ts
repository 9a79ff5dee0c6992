import http from 'node:http';
import type { Socket } from 'node:net';
import express, { type Express } from 'express';
import type { Logger } from '@platform/logger';
import { httpMetrics, serveMetrics } from '@platform/metrics';
import { healthRoutes, type ReadinessCheck } from './health-routes';
import { answerWithSecurityHeaders } from './security-headers';
import { keepIdleConnections } from './idle-connections';

export type { ReadinessCheck };

export interface ServiceOptions {
  name: string;
  host: string;
  port: number;
  /** The internal Prometheus listener's port (`GET /metrics`); undefined: none. */
  metricsPort?: number | undefined;
  logger: Logger;
  /** Dependencies that must answer for `/readyz` to be 200. */
  checks: Record<string, ReadinessCheck>;
  /** Mounts the service's own routes; health routes are mounted before it. */
  mount: (app: Express) => void;
  /** Lets a service attach to the raw server (WebSocket upgrades). */
  onServer?: (server: http.Server) => void;
  /** Stop taking new work (consumers, workers) before in-flight requests drain. */
  stopIntake?: () => Promise<void>;
  /** Close connections to dependencies once in-flight work is done. */
  close: () => Promise<void>;
  /** Upper bound for draining in-flight requests before connections are cut. */
  drainTimeoutMs?: number;
}

export interface ServiceHandle {
  server: http.Server;
  port: number;
  shutdown: (reason: string) => Promise<void>;
}

/**
 * Starts an app's HTTP server with health routes and a graceful SIGTERM/SIGINT shutdown:
 * readiness turns 503, intake stops, in-flight requests finish (bounded), dependencies close,
 * and the process exits 0.
 */
export async function runService(options: ServiceOptions): Promise<ServiceHandle> {
  const { logger } = options;
  let draining = false;
  const app = express();
  app.disable('x-powered-by');
  // X-Forwarded-For is nobody's to believe but the gateway's (TRUSTED_PROXIES there); services take
  // the client's address from the gateway's signed identity, and req.ip is the socket's peer.
  app.set('trust proxy', false);
  // First, so every answer is timed, health checks and refusals included.
  app.use(httpMetrics());
  app.use(healthRoutes(options.checks, () => draining));
  options.mount(app);

  const server = http.createServer(app);
  keepIdleConnections(server);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  options.onServer?.(server);
  // After onServer: a service may replace the request listener there (auth's fast lane).
  answerWithSecurityHeaders(server);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = listeningPort(server) ?? options.port;
  logger.info({ port, host: options.host }, `${options.name} listening`);
  const metricsServer =
    options.metricsPort === undefined ? undefined : await serveMetrics(options.metricsPort, options.host);
  if (metricsServer)
    logger.info({ port: listeningPort(metricsServer), host: options.host }, `${options.name} serving metrics`);

  let shuttingDown: Promise<void> | undefined;
  const shutdown = (reason: string): Promise<void> => {
    shuttingDown ??= (async () => {
      draining = true;
      logger.info({ reason }, `${options.name} draining`);
      await options.stopIntake?.().catch((err: unknown) => logger.error({ err }, 'stopping intake failed'));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => {
        logger.warn({ open: sockets.size }, 'drain timeout reached; closing remaining connections');
        for (const socket of sockets) socket.destroy();
      }, options.drainTimeoutMs ?? 10_000);
      await closed;
      clearTimeout(timer);
      await options.close().catch((err: unknown) => logger.error({ err }, 'closing dependencies failed'));
      // Last: a scrape during the drain still sees the in-flight work.
      if (metricsServer) await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      logger.info(`${options.name} stopped`);
    })();
    return shuttingDown;
  };

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void shutdown(signal).then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  return { server, port, shutdown };
}

function listeningPort(server: http.Server): number | undefined {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : undefined;
}
