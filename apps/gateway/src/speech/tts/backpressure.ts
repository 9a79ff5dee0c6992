import { setTimeout as sleep } from 'node:timers/promises';
import { once } from 'node:events';
import type { Response } from 'express';

/** How a wait for a slow client ended. */
export type DrainOutcome = 'drained' | 'gone' | 'stalled';

/**
 * Waits until a slow client has taken the bytes written so far ('drained'), has gone ('gone': the
 * response closed, or `signal` aborted; a 'close' that happened before this call would never fire
 * again, so the signal is checked too), or has taken nothing for `stallTimeoutMs` ('stalled': a
 * client that keeps the connection open but stops reading must not hold the job forever).
 */
export async function drained(res: Response, signal: AbortSignal, stallTimeoutMs: number): Promise<DrainOutcome> {
  if (signal.aborted || res.destroyed) return 'gone';
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    // Each wait settles quietly when aborted below (the losers of the race, or all of them when the
    // client's signal aborts first, which reads as 'gone').
    const wait = { signal: controller.signal };
    return await Promise.race([
      once(res, 'drain', wait).then(() => 'drained' as const, () => 'gone' as const),
      once(res, 'close', wait).then(() => 'gone' as const, () => 'gone' as const),
      sleep(stallTimeoutMs, 'stalled' as const, wait).catch(() => 'gone' as const),
    ]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    controller.abort();
  }
}
