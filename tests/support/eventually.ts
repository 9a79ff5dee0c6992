/**
 * Waiting for conditions instead of sleeping: a test waits for what it needs to be true, with a
 * generous overall bound that only turns a hang into a readable failure (never a deadline the
 * behaviour under test has to meet on a loaded machine).
 */

/** Polls `check` until it returns true; throws after `timeoutMs`. Returns how long it took. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 50,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started >= timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Resolves once the clock reads `atMs` (epoch ms) or later: for windows, leases and TTLs that must have passed. */
export async function untilClock(atMs: number, intervalMs = 25): Promise<void> {
  await eventually(() => Date.now() >= atMs, Math.max(0, atMs - Date.now()) + 60_000, intervalMs);
}

export interface OneWindowOptions<P> {
  /** Length of the window (a rate limit's second, a lease, a TTL). Default 1000 ms. */
  windowMs?: number;
  /** Slack kept inside the window for clock granularity. Default 100 ms. */
  marginMs?: number;
  /** Runs before each attempt, untimed: a fresh subject (new IP, key, prefix), or waiting for the last window to end. */
  before?: () => Promise<P>;
  /** Attempts before giving up. Default 20. */
  attempts?: number;
}

/**
 * For assertions that only mean something when a sequence of requests falls inside one fixed
 * window: a rate limit's one-second window (opened by the first request it counts), a lease, a TTL.
 * Runs `run` until one attempt completes within `windowMs - marginMs` of its start, measured from
 * before its first request to after its last answer, and returns that attempt's result. Every
 * request of such an attempt was counted inside the window its first request opened (or found
 * open); an attempt that took longer says nothing about the limit (the window may have rolled over
 * in the middle) and is discarded. So `run` must only collect what it sees: assert on the returned
 * value, not inside `run`, and start each attempt on a fresh window (`before`).
 */
export async function inOneWindow<T, P = undefined>(
  run: (prepared: P) => Promise<T>,
  options: OneWindowOptions<P> = {},
): Promise<T> {
  const fitMs = (options.windowMs ?? 1000) - (options.marginMs ?? 100);
  const attempts = options.attempts ?? 20;
  const took: number[] = [];
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const prepared = (options.before ? await options.before() : undefined) as P;
    const started = Date.now();
    const result = await run(prepared);
    const ms = Date.now() - started;
    if (ms < fitMs) return result;
    took.push(ms);
  }
  throw new Error(
    `no attempt fitted in one ${options.windowMs ?? 1000} ms window (${attempts} attempts took ${took.join(', ')} ms)`,
  );
}
