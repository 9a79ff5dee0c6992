import { setTimeout as sleep } from 'node:timers/promises';
import { once, type EventEmitter } from 'node:events';
import type { Response } from 'express';

/** How a wait for a slow client ended. */
export type DrainOutcome = 'drained' | 'gone' | 'stalled';

/**
 * What the gateway writes audio to at its client's pace: an HTTP response, or the socket under a
 * WebSocket. Both emit 'drain' once their write buffer has emptied and 'close' when they end.
 */
type ClientSink = EventEmitter & { readonly destroyed: boolean };

/** The whole-file body goes out in pieces of this size, each waited for as `/stream`'s frames are. */
const BODY_SLICE_BYTES = 64 * 1024;

/**
 * Waits until a slow client has taken the bytes written so far ('drained'), has gone ('gone': the
 * sink closed, or `signal` aborted; a 'close' that happened before this call would never fire
 * again, so the signal is checked too), or has taken nothing for `stallTimeoutMs` ('stalled': a
 * client that keeps the connection open but stops reading must not hold the job forever).
 */
export function drained(sink: ClientSink, signal: AbortSignal, stallTimeoutMs: number): Promise<DrainOutcome> {
  return waitFor(sink, 'drain', signal, stallTimeoutMs);
}

/**
 * After `res.end()`: waits until the last bytes have been handed to the operating system ('finish'),
 * with the same stall rule, so a client that stops reading just before the end does not hold its
 * socket (and the tail in the gateway's buffer) forever either.
 */
export function finished(res: Response, signal: AbortSignal, stallTimeoutMs: number): Promise<DrainOutcome> {
  if (res.writableFinished) return Promise.resolve('drained');
  return waitFor(res, 'finish', signal, stallTimeoutMs);
}

/**
 * Sends a whole body (headers, including `Content-Length`, already set) at the client's pace:
 * `BODY_SLICE_BYTES` at a time, waiting for each to drain, then ends the response and waits for
 * it to finish. 'drained' means the client was handed every byte; otherwise the response is left
 * unfinished for the caller to destroy.
 */
export async function sendBody(
  res: Response,
  body: Buffer,
  signal: AbortSignal,
  stallTimeoutMs: number,
): Promise<DrainOutcome> {
  for (let offset = 0; offset < body.length; offset += BODY_SLICE_BYTES) {
    if (!res.write(body.subarray(offset, offset + BODY_SLICE_BYTES))) {
      const outcome = await drained(res, signal, stallTimeoutMs);
      if (outcome !== 'drained') return outcome;
    }
  }
  res.end();
  return finished(res, signal, stallTimeoutMs);
}

async function waitFor(
  sink: ClientSink,
  event: 'drain' | 'finish',
  signal: AbortSignal,
  stallTimeoutMs: number,
): Promise<DrainOutcome> {
  if (signal.aborted || sink.destroyed) return 'gone';
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    // Each wait settles quietly when aborted below (the losers of the race, or all of them when the
    // client's signal aborts first, which reads as 'gone').
    const wait = { signal: controller.signal };
    return await Promise.race([
      once(sink, event, wait).then(
        () => 'drained' as const,
        () => 'gone' as const,
      ),
      once(sink, 'close', wait).then(
        () => 'gone' as const,
        () => 'gone' as const,
      ),
      sleep(stallTimeoutMs, 'stalled' as const, wait).catch(() => 'gone' as const),
    ]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    controller.abort();
  }
}
