import type { IncomingMessage } from 'node:http';
import { CloseCode, handleProtocols, makeServer, type ServerOptions } from 'graphql-ws';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '@platform/logger';
import { messageBucket, type MessageRate } from '../limits/message-rate';
import { CLOSE_TOO_MANY_REQUESTS } from './close-codes';

/**
 * Bytes one socket may hold unsent before it counts as blocked. Below it every message is written
 * at once, so the events a Kafka fetch brings leave in one write; above it graphql-ws's `send`
 * waits for the kernel to take them, and each subscription's messages wait in its bounded backlog,
 * which closes a client that stopped reading (subscription-stream.ts).
 */
const SEND_HIGH_WATER_BYTES = 256 * 1024;

/** The TCP side of a WebSocket: what a corked flush needs from it. */
interface Corkable {
  cork(): void;
  uncork(): void;
}

/** Called after each socket write with the number of messages it carried (the gateway's metrics). */
export type WriteObserver = (messages: number) => void;

/**
 * Writes the sockets that have pending messages, all together once per turn of the event loop (one
 * setImmediate for the whole server rather than one per socket). Under load a turn is long (a
 * Kafka fetch's events executed and handed to hundreds of sockets), so each socket's write carries
 * every message that turn brought: the batching follows the load by itself. A fixed flush window
 * (write at most once per N ms) was measured on top of it and did not lower the number of writes
 * at 66 or 100 events/s (docs/benchmarks.md, "Subscriptions"), so there is none.
 */
export class FlushSchedule {
  private dirty: CoalescingSender[] = [];
  private scheduled = false;

  /** `sender` has pending messages: it is flushed on the next turn. */
  add(sender: CoalescingSender): void {
    this.dirty.push(sender);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.run());
  }

  private run(): void {
    this.scheduled = false;
    const batch = this.dirty;
    this.dirty = [];
    for (const sender of batch) sender.flush();
  }
}

/**
 * One socket's outgoing messages (graphql-ws's own and the hub's events), written together.
 * graphql-ws's `use/ws` adapter writes each message as it is sent and resolves the send on the
 * write's callback, so each message of each subscription was one socket write: at 1,000
 * subscribers the kernel's `writev` was a third of a gateway's busy time. Here a message joins
 * the socket's pending list, and the list is written on the next turn of the event loop (its
 * FlushSchedule: after every event the current Kafka fetch brought has been executed) inside one
 * cork, which Node turns into one `writev`. Order is the order of `send`.
 */
export class CoalescingSender {
  private pending: string[] = [];
  private pendingBytes = 0;
  private waiters: (() => void)[] = [];
  private scheduled = false;
  private readonly drainListeners = new Set<() => void>();

  constructor(
    private readonly socket: WebSocket,
    private readonly tcp: Corkable,
    private readonly schedule: FlushSchedule,
    private readonly highWater = SEND_HIGH_WATER_BYTES,
    private readonly onWrite?: WriteObserver,
  ) {}

  /** At or above the mark: what is written now waits in memory for the client to read. */
  get blocked(): boolean {
    return this.socket.bufferedAmount + this.pendingBytes >= this.highWater;
  }

  send(data: string): Promise<void> | void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule.add(this);
    }
    if (!this.blocked) return;
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** `listener` runs each time the kernel has taken a flush and the socket is below the mark. Returns its removal. */
  onDrain(listener: () => void): () => void {
    this.drainListeners.add(listener);
    return () => this.drainListeners.delete(listener);
  }

  /** Writes what is pending now; a waiting `send` resumes when the kernel has taken it. */
  flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    const waiters = this.waiters;
    this.pending = [];
    this.pendingBytes = 0;
    this.waiters = [];
    // A send of a closing socket resolves: its 'close' ends the subscriptions (graphql-ws).
    const release = (): void => {
      for (const resolve of waiters) resolve();
      if (this.blocked || this.socket.readyState !== this.socket.OPEN) return;
      for (const listener of this.drainListeners) listener();
    };
    if (batch.length === 0 || this.socket.readyState !== this.socket.OPEN) return release();
    this.tcp.cork();
    try {
      const last = batch.length - 1;
      for (let i = 0; i < last; i += 1) this.socket.send(batch[i]!);
      this.socket.send(batch[last]!, release);
    } finally {
      this.tcp.uncork();
    }
    this.onWrite?.(batch.length);
  }
}

/** What each connection's graphql-ws context carries besides the protocol's state (as `use/ws`). */
interface WsExtra {
  socket: WebSocket;
  request: IncomingMessage;
  /** Everything sent on the socket goes through it, graphql-ws's messages and the hub's alike. */
  sender: CoalescingSender;
}

interface TransportOptions {
  /** Ping interval; a client that has not answered the previous ping by the next is terminated. */
  keepAliveMs: number;
  onWrite?: WriteObserver;
  /** Each socket's inbound message budget; beyond it the socket is closed 4429 before the message is read. */
  messageRate: MessageRate;
  logger: Logger;
}

/**
 * graphql-ws's server (`makeServer`, the library's transport-neutral core) on a `ws` server: the
 * library's own `use/ws` adapter, with coalesced sending (CoalescingSender) and errors to our logger.
 */
export function serveGraphqlWs<P extends Record<string, unknown> | undefined>(
  options: ServerOptions<P, WsExtra>,
  wss: WebSocketServer,
  transport: TransportOptions,
): { dispose: () => Promise<void> } {
  const server = makeServer<P, WsExtra>(options);
  const schedule = new FlushSchedule();
  wss.options.handleProtocols = handleProtocols;
  wss.once('error', (err) => {
    transport.logger.error({ err }, 'graphql-ws server error');
    for (const client of wss.clients) client.close(CloseCode.InternalServerError, 'Internal server error');
  });
  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    socket.once('error', (err) => {
      transport.logger.warn({ err }, 'graphql-ws socket error');
      socket.close(CloseCode.InternalServerError, 'Internal server error');
    });
    const sender = new CoalescingSender(socket, request.socket, schedule, SEND_HIGH_WATER_BYTES, transport.onWrite);
    const takeMessage = messageBucket(transport.messageRate);
    let flooded = false;
    let pongWait: NodeJS.Timeout | undefined;
    const pings = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return;
      pongWait ??= setTimeout(() => socket.terminate(), transport.keepAliveMs);
      socket.once('pong', () => {
        clearTimeout(pongWait);
        pongWait = undefined;
      });
      socket.ping();
    }, transport.keepAliveMs);
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) => sender.send(data),
        close: (code, reason) => {
          // What was sent before the close goes first, as it would have without coalescing.
          sender.flush();
          socket.close(code, reason);
        },
        onMessage: (cb) =>
          socket.on('message', (data) => {
            if (flooded) return;
            if (!takeMessage()) {
              // Before parsing: a flood costs a token check per message, not a subscribe or complete.
              flooded = true;
              sender.flush();
              socket.close(
                CLOSE_TOO_MANY_REQUESTS,
                `too many messages: at most ${transport.messageRate.perSecond} per second (burst ${transport.messageRate.burst})`,
              );
              return;
            }
            cb(String(data)).catch((err: unknown) => {
              transport.logger.error({ err }, 'graphql-ws message handling failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      { socket, request, sender },
    );
    socket.once('close', (code, reason) => {
      clearTimeout(pongWait);
      clearInterval(pings);
      void closed(code, String(reason));
    });
  });
  return {
    dispose: async () => {
      for (const client of wss.clients) client.close(1001, 'Going away');
      wss.removeAllListeners();
      await new Promise<void>((resolve, reject) => wss.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
