import type { Duplex } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import { speechErrorBody } from '@platform/errors';
import { countRefusal } from '../metrics/stream-metrics';
import { sendEdgeError, type Surface } from './edge-errors';
import { surfaceOf } from './path-guard';

/**
 * The gateway's shutdown (SIGTERM, a rollout or a scale-down): from the signal on, new requests and
 * WebSocket upgrades are refused 503 (the load balancer has already been told by `/readyz` and the
 * pod's `preStop`), while the work in flight (HTTP responses, `/stream` included, and WebSocket
 * sessions) goes on until it ends or the grace (`SHUTDOWN_GRACE_MS`) is over, whichever comes first
 * (docs/gateway.md, "Shutdown").
 */
export interface ShutdownDrain {
  /** True once `close` was called. */
  readonly closing: boolean;
  /** Express middleware, before every route: counts requests in flight; once closing, refuses new ones. */
  requests(req: Request, res: Response, next: NextFunction): void;
  /** For WebSocket upgrades (`url`: the upgrade's): once closing, answers 503 on the raw socket and returns true. */
  refuseUpgrade(socket: Duplex, url?: string): boolean;
  /** Stops intake; resolves `drained` when nothing is in flight, or `grace over` after the grace. */
  close(): Promise<'drained' | 'grace over'>;
}

interface ShutdownDrainOptions {
  graceMs: number;
  /** WebSocket sessions open now (speech `stream-input`, graphql-ws): in flight like requests. */
  openSessions: () => number;
  /** How often the work in flight is counted while closing (default 50 ms). */
  pollMs?: number;
}

/**
 * How WebSocket sessions still open when the grace is over are closed: 1012 "service restart"
 * (RFC 6455 §7.4, IANA WebSocket close code registry), so clients reconnect (to another replica).
 */
export const SERVICE_RESTART = { code: 1012, reason: 'the gateway is restarting; reconnect' } as const;

/** Clients are told to come back at once: another replica takes them (the load balancer routes there). */
const RETRY_AFTER_SECONDS = '1';
/** Speech requests, counted in `speech_requests_refused_total`: the speech API's and OpenAI's speech API's. */
const SPEECH_SURFACES: ReadonlySet<Surface> = new Set(['speech', 'openai']);
const MESSAGE = 'the gateway is shutting down; retry the request';

export function createShutdownDrain(options: ShutdownDrainOptions): ShutdownDrain {
  let closing = false;
  let requestsInFlight = 0;
  const idle = () => requestsInFlight === 0 && options.openSessions() === 0;

  return {
    get closing() {
      return closing;
    },
    requests(req, res, next) {
      if (closing) {
        // A request on a kept-alive connection: refused, and the connection with it, so the
        // client's next request opens a connection the load balancer sends elsewhere.
        res.setHeader('connection', 'close');
        const surface = surfaceOf(req.originalUrl);
        if (SPEECH_SURFACES.has(surface)) countRefusal('shutdown');
        sendEdgeError(res, surface, {
          status: 503,
          code: 'shutting_down',
          message: MESSAGE,
          headers: { 'retry-after': RETRY_AFTER_SECONDS },
        });
        return;
      }
      requestsInFlight++;
      res.once('close', () => requestsInFlight--);
      next();
    },
    refuseUpgrade(socket, url) {
      if (!closing) return false;
      if (url !== undefined && SPEECH_SURFACES.has(surfaceOf(url))) countRefusal('shutdown');
      const body = JSON.stringify(speechErrorBody('error', MESSAGE));
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\nRetry-After: ${RETRY_AFTER_SECONDS}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return true;
    },
    close() {
      closing = true;
      return new Promise((resolve) => {
        const started = Date.now();
        const check = () => {
          if (idle()) resolve('drained');
          else if (Date.now() - started >= options.graceMs) resolve('grace over');
          else setTimeout(check, options.pollMs ?? 50);
        };
        check();
      });
    },
  };
}
