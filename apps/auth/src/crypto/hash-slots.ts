/**
 * A bound on concurrent password hashes in one auth replica. scrypt runs on libuv's thread pool
 * (off the event loop), but each hash holds a pool thread and 32 MiB for ~50 ms: a flood of sign-ins
 * or sign-ups would queue behind it everything else that uses the pool (DNS lookups, file reads,
 * other crypto). At most `concurrency` hashes run at once and `queue` more wait; beyond that the
 * caller is refused at once with `PasswordHashBusy` (answered 503 `temporarily_unavailable`, Retry-After).
 */
export class PasswordHashBusy extends Error {
  constructor() {
    super('too many password checks in progress');
    this.name = 'PasswordHashBusy';
  }
}

export interface HashSlots {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Hashes running and waiting, for tests and metrics. */
  stats(): { running: number; waiting: number };
}

export function createHashSlots(concurrency: number, queue: number): HashSlots {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  return {
    async run(work) {
      if (running >= concurrency) {
        if (waiting.length >= queue) throw new PasswordHashBusy();
        // The slot is handed over by `release` without `running` going down and up again.
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        running += 1;
      }
      try {
        return await work();
      } finally {
        release();
      }
    },
    stats: () => ({ running, waiting: waiting.length }),
  };
}
