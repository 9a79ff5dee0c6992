import type { ExecutionResult } from 'graphql';

/** Where a subscription's messages go: its connection's sender (ws-transport.ts). */
export interface MessageOutlet {
  send(message: string): unknown;
  /** True while the socket holds more unsent bytes than it should: messages wait instead. */
  readonly blocked: boolean;
  /** Runs `listener` whenever the socket stops being blocked; returns its removal. */
  onDrain(listener: () => void): () => void;
}

/**
 * One subscription's delivery. The hub hands it each event's result serialised once for its whole
 * group, and it writes the graphql-transport-ws `next` message for its own id straight to the
 * connection's sender: no per-subscriber execution, serialisation or async step. While the socket
 * is blocked (the client reads slower than events come), messages wait in a bounded backlog that
 * the sender drains in order; when the backlog overflows, `onOverflow` fires once (the connection
 * is closed) and the subscription ends, so one slow client never holds memory or delays others.
 *
 * To graphql-ws it is the subscription's iterator. It yields nothing, since messages bypass
 * graphql-ws's per-message loop, and ends when either side ends the subscription: the client's
 * `complete` calls `return()`; an overflow or a shutdown ends it here, and graphql-ws then sends
 * `complete` after every message already written.
 */
export class SubscriptionStream implements AsyncIterableIterator<ExecutionResult> {
  private readonly backlog: string[] = [];
  private readonly prefix: string;
  private readonly stopDraining: () => void;
  private waiting: ((result: IteratorResult<ExecutionResult>) => void) | undefined;
  private ended = false;

  constructor(
    id: string,
    private readonly outlet: MessageOutlet,
    private readonly capacity: number,
    private readonly onOverflow: () => void,
    private readonly onEnd: () => void,
  ) {
    // graphql-ws writes a `next` message with these keys in this order (server.ts `emit.next`).
    this.prefix = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
    this.stopDraining = outlet.onDrain(() => this.drain());
  }

  /** Messages waiting for the socket. */
  get size(): number {
    return this.backlog.length;
  }

  get closed(): boolean {
    return this.ended;
  }

  /** `payload`: a serialised ExecutionResult. False when it was not delivered (ended, or just overflowed). */
  deliver(payload: string): boolean {
    if (this.ended) return false;
    const message = `${this.prefix}${payload}}`;
    if (this.backlog.length === 0 && !this.outlet.blocked) {
      this.outlet.send(message);
      return true;
    }
    if (this.backlog.length >= this.capacity) {
      this.finish();
      this.onOverflow();
      return false;
    }
    this.backlog.push(message);
    return true;
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(err?: unknown): Promise<IteratorResult<ExecutionResult>> {
    this.finish();
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private drain(): void {
    let sent = 0;
    while (sent < this.backlog.length && !this.outlet.blocked) this.outlet.send(this.backlog[sent++]!);
    if (sent > 0) this.backlog.splice(0, sent);
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.backlog.length = 0;
    this.stopDraining();
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.({ value: undefined, done: true });
    this.onEnd();
  }
}
