/**
 * One subscriber's outbox: events wait here while the client's socket is busy. The buffer is
 * bounded; when a slow client lets it fill, `onOverflow` fires once (the connection is closed)
 * and the queue ends, so one slow client never holds memory or slows the fan-out to others.
 */
export class SubscriberQueue<T> implements AsyncIterableIterator<T> {
  private readonly buffer: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private ended = false;

  constructor(
    private readonly capacity: number,
    private readonly onOverflow: () => void,
    private readonly onEnd: () => void,
  ) {}

  get size(): number {
    return this.buffer.length;
  }

  get closed(): boolean {
    return this.ended;
  }

  /** False when the item was not queued (queue ended or just overflowed). */
  push(item: T): boolean {
    if (this.ended) return false;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: item, done: false });
      return true;
    }
    if (this.buffer.length >= this.capacity) {
      this.finish();
      this.onOverflow();
      return false;
    }
    this.buffer.push(item);
    return true;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.buffer.length > 0) return Promise.resolve({ value: this.buffer.shift()!, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(err?: unknown): Promise<IteratorResult<T>> {
    this.finish();
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.buffer.length = 0;
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.({ value: undefined, done: true });
    this.onEnd();
  }
}
