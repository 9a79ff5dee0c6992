/**
 * Spaces the playground's own API requests to its account's plan limits (docs/gateway.md "Plan limits"),
 * so that a burst (the history list and its audio, several quick clicks) is not refused with 429.
 *
 * - **Requests per second**: the gateway says the plan's number in `X-RateLimit-Limit` on every limited
 *   response; the pacer reads it from each answer, and until the first one assumes 3 (the free plan's, the
 *   lowest). It starts at most that many requests in any window of a second plus `marginMs`, so that
 *   network jitter cannot put one more into the gateway's one-second window.
 * - **Requests at once**: nothing the API returns says it (`GET /v1/user/subscription` has characters and
 *   voices, not rates), so the pacer keeps a client-side budget of 2, the free plan's and the lowest. A
 *   request holds its slot until its response body is read to the end (or cancelled): a streaming answer
 *   holds the gateway's slot that long too.
 * - **A 429 anyway** (another tab or a `curl` of the same account shares the budget): it waits the
 *   `Retry-After` seconds and sends the request once more, telling `onWaiting` meanwhile. A 429 without
 *   `Retry-After`, or with more than `maxRetryAfterS` (a character quota, not a rate), is returned as it is.
 */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface PacingOptions {
  clock?: Clock;
  /** Requests per second until a response says the plan's number. */
  rps?: number;
  concurrency?: number;
  marginMs?: number;
  maxRetryAfterS?: number;
  /** Called with `true` while a request waits out a 429's Retry-After, `false` when none does. */
  onWaiting?: (waiting: boolean) => void;
}

export interface Pacer {
  /** Sends `request` (called again for the one retry) when the budget allows; the response as `fetch` gives it. */
  send(request: () => Promise<Response>): Promise<Response>;
}

export const PACING_DEFAULTS = { rps: 3, concurrency: 2, marginMs: 100, maxRetryAfterS: 10 } as const;

export function createPacer(options: PacingOptions = {}): Pacer {
  const clock = options.clock ?? realClock;
  const concurrency = options.concurrency ?? PACING_DEFAULTS.concurrency;
  const windowMs = 1000 + (options.marginMs ?? PACING_DEFAULTS.marginMs);
  const maxRetryAfterS = options.maxRetryAfterS ?? PACING_DEFAULTS.maxRetryAfterS;
  let rps: number = options.rps ?? PACING_DEFAULTS.rps;
  /** Start times of the requests in the current window, oldest first. */
  const starts: number[] = [];
  let active = 0;
  let wake: (() => void) | null = null;
  let waiting = 0;
  // One request at a time looks for a slot, in the order they came: later ones queue behind it.
  let turn: Promise<void> = Promise.resolve();

  const slot = async (): Promise<void> => {
    for (;;) {
      const now = clock.now();
      while (starts.length > 0 && starts[0]! <= now - windowMs) starts.shift();
      if (active < concurrency && starts.length < rps) {
        starts.push(now);
        active += 1;
        return;
      }
      if (active >= concurrency) await new Promise<void>((resolve) => (wake = resolve));
      else await clock.sleep(starts[0]! + windowMs - now);
    }
  };
  const acquire = (): Promise<void> => {
    const mine = turn.then(slot);
    turn = mine.catch(() => undefined);
    return mine;
  };
  const releaser = () => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      active -= 1;
      const next = wake;
      wake = null;
      next?.();
    };
  };

  const learn = (headers: Headers) => {
    const limit = Number(headers.get('x-ratelimit-limit'));
    if (Number.isInteger(limit) && limit > 0) rps = limit;
  };

  const once = async (request: () => Promise<Response>): Promise<Response> => {
    await acquire();
    const release = releaser();
    let res: Response;
    try {
      res = await request();
    } catch (err) {
      release();
      throw err;
    }
    learn(res.headers);
    return releasedAtEnd(res, release);
  };

  const waitOut = async (seconds: number) => {
    waiting += 1;
    if (waiting === 1) options.onWaiting?.(true);
    try {
      await clock.sleep(seconds * 1000);
    } finally {
      waiting -= 1;
      if (waiting === 0) options.onWaiting?.(false);
    }
  };

  return {
    async send(request) {
      const first = await once(request);
      const retryAfter = retryAfterSeconds(first);
      if (retryAfter === null || retryAfter > maxRetryAfterS) return first;
      await first.body?.cancel();
      await waitOut(retryAfter);
      return once(request);
    },
  };
}

/** A 429's Retry-After in whole seconds (RFC 9110 §10.2.3, delay-seconds), or null. */
function retryAfterSeconds(res: Response): number | null {
  if (res.status !== 429) return null;
  const value = res.headers.get('retry-after')?.trim() ?? '';
  return /^\d+$/.test(value) ? Number(value) : null;
}

/** Statuses whose response has no body (Fetch: a "null body status"; `new Response` refuses a body for them). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** The response, with `release` called once its body is read to the end, fails or is cancelled. */
function releasedAtEnd(res: Response, release: () => void): Response {
  // Chromium gives a 204 an empty body stream, not null: it is finished already.
  if (!res.body || NULL_BODY_STATUSES.has(res.status)) {
    release();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          release();
          controller.close();
        } else controller.enqueue(next.value);
      } catch (err) {
        release();
        controller.error(err);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
