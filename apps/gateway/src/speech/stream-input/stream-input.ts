import type http from 'node:http';
import type stream from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { SpeechError, speechErrorBody } from '@platform/errors';
import type { Identity } from '@platform/identity';
import { addressSpentMessage } from '../../limits/failed-credentials';
import type { RateDecision } from '../../limits/rate-limiter';
import type { WebSocketLogins } from '../../limits/websocket-logins';
import { countConnection, declareEndpoint, type WebSocketEndpoint } from '../../metrics/gateway-metrics';
import { drained } from '../tts/backpressure';
import type { ReleaseSlot, SessionAuth, SessionDeps, TextSocketSession } from './text-socket-session';
import type { SessionTransport } from './transport';

export interface StreamInputDeps extends Omit<SessionDeps, 'auth'> {
  authenticateApiKey(key: string): Promise<Identity | null>;
  limits: { acquire(identity: Identity): Promise<ReleaseSlot | null> };
  /**
   * The gateway's per-IP budget for logins refused for their key (no key, a key not accepted): each
   * refusal is charged; once spent, a key is refused 429 without asking auth. Absent: not charged.
   */
  logins?: WebSocketLogins;
  /**
   * Sockets per client address still without an accepted key, across replicas: one is held from the
   * upgrade until the session has its plan's concurrency slot (or closes); null: the address holds
   * `perAddress`, and the upgrade is answered 429. Absent: not counted.
   */
  connections?: {
    open(upgrade: http.IncomingMessage): Promise<{ release(): Promise<void> } | null>;
    perAddress: number;
  };
}

/**
 * A text-in, audio-out WebSocket the gateway serves: the path it takes (its one group the voice or
 * model id), its metrics label, and the protocol each connection runs.
 */
export interface TextSocketRoute {
  path: RegExp;
  endpoint: WebSocketEndpoint;
  session: new (deps: SessionDeps, transport: SessionTransport) => TextSocketSession;
}
/** Largest single message; text beyond this per message is a client bug or an attack. */
const MAX_MESSAGE_BYTES = 64 * 1024;

/** The session's connection: the WebSocket, and the upgraded socket under it whose 'drain' says the client took what was buffered. */
function socketTransport(ws: WebSocket, socket: stream.Duplex): SessionTransport {
  return {
    get open() {
      return ws.readyState === ws.OPEN;
    },
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
    sendText: (text) => ws.send(text),
    sendBinary: (data) => ws.send(data, { binary: true }),
    close: (code, reason) => ws.close(code, reason),
    drained: (signal, stallTimeoutMs) => drained(socket, signal, stallTimeoutMs),
  };
}

/** Key checks for one upgrade: refusals are charged to its client IP; `addressSlot` is given back once the account's slot is held. */
function upgradeAuth(
  deps: StreamInputDeps,
  upgrade: http.IncomingMessage,
  addressSlot: { release(): Promise<void> } | null,
): SessionAuth {
  const addressSpent = (decision: RateDecision) =>
    new SpeechError(429, 'too_many_requests', addressSpentMessage(decision));
  return {
    lookup: (key) => deps.authenticateApiKey(key),
    spent: async (key) => {
      const spent = await deps.logins?.refuseUnchecked(upgrade, { kind: 'api_key', key });
      return spent ? addressSpent(spent) : null;
    },
    refuse: async (error) => {
      const over = await deps.logins?.chargeRefusal(upgrade);
      return over ? addressSpent(over) : error;
    },
    acquire: async (caller) => {
      const release = await deps.limits.acquire(caller);
      // From here the socket counts against its account (plan concurrency), no longer its address.
      if (release) await addressSlot?.release();
      return release;
    },
  };
}

/** The route whose path `pathname` is, with the path's id (still percent-encoded); null for any other path. */
function routeOf(routes: readonly TextSocketRoute[], pathname: string): { route: TextSocketRoute; id: string } | null {
  for (const route of routes) {
    const id = route.path.exec(pathname)?.[1];
    if (id) return { route, id };
  }
  return null;
}

const messageText = (data: RawData): string =>
  Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8');

/**
 * The speech API's text-in, audio-out WebSockets (`routes`: `stream-input`, `multi-stream-input`;
 * docs/speech.md). This is the socket glue: it takes the upgrade, binds each connection to its
 * route's session (the protocol), and closes them all at shutdown.
 */
export function createStreamInput(deps: StreamInputDeps, routes: readonly TextSocketRoute[]) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  for (const route of routes) declareEndpoint(route.endpoint);
  const sessions = new Set<TextSocketSession>();

  function connect(
    route: TextSocketRoute,
    ws: WebSocket,
    socket: stream.Duplex,
    upgrade: http.IncomingMessage,
    url: URL,
    segment: string,
    addressSlot: { release(): Promise<void> } | null,
  ): void {
    const session = new route.session(
      { ...deps, auth: upgradeAuth(deps, upgrade, addressSlot) },
      socketTransport(ws, socket),
    );
    // Counted here: `handleUpgrade` hands the socket over without a `connection` event.
    countConnection(ws, route.endpoint);
    sessions.add(session);
    ws.on('close', () => {
      sessions.delete(session);
      session.closed();
    });
    ws.on('error', () => undefined);
    ws.on('message', (data: RawData, isBinary: boolean) => session.receive(isBinary ? null : messageText(data)));
    void session.open(url.searchParams, segment, upgrade.headers).catch((err: unknown) => {
      deps.logger.error({ err, endpoint: route.endpoint }, 'speech WebSocket session failed');
      session.fail(new SpeechError(500, 'error', 'internal error'));
    });
  }

  /** Takes the upgrades of `routes`' paths; false for any other path. */
  function handleUpgrade(req: http.IncomingMessage, socket: stream.Duplex, head: Buffer): boolean {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://gateway');
    } catch {
      return false;
    }
    const found = routeOf(routes, url.pathname);
    if (!found) return false;
    const { route, id } = found;
    let segment: string;
    try {
      segment = decodeURIComponent(id);
    } catch {
      // Malformed percent-encoding: answer the upgrade request plainly instead of throwing.
      socket.end(
        'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"detail":{"status":"bad_request","message":"malformed path"}}',
      );
      return true;
    }
    const connections = deps.connections;
    if (!connections) {
      wss.handleUpgrade(req, socket, head, (ws) => connect(route, ws, socket, req, url, segment, null));
      return true;
    }
    connections
      .open(req)
      .then((slot) => {
        if (!slot) {
          // Refused before the upgrade: HTTP's 429, in the speech API's error shape.
          const body = JSON.stringify(
            speechErrorBody(
              'too_many_requests',
              `too many connections without an accepted API key: at most ${connections.perAddress} per client address`,
            ),
          );
          socket.end(
            `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`,
          );
          return;
        }
        // However the socket ends (refused by ws, closed by either side), its address's slot is given back.
        socket.once('close', () => void slot.release());
        if (socket.destroyed) {
          void slot.release();
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => connect(route, ws, socket, req, url, segment, slot));
      })
      .catch((err: unknown) => {
        deps.logger.error({ err }, 'speech WebSocket upgrade failed');
        socket.destroy();
      });
    return true;
  }

  return {
    handleUpgrade,
    /** Sessions open now (the gateway's shutdown waits for them, up to its grace). */
    openSessions: () => sessions.size,
    /** Closes every session 1012 (its job cancelled) and takes no more. */
    async close() {
      for (const session of sessions) session.shutdown();
      wss.close();
    },
  };
}
