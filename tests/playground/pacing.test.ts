import { createPacer, type Clock } from '../../apps/playground/src/pacing';

/**
 * The playground's pacing (apps/playground/src/pacing.ts) on a fake clock: requests per second from the
 * gateway's X-RateLimit-Limit, two at once until each body is read, one retry after a 429's Retry-After.
 */

/** A clock that moves only when told; `advance` fires the sleeps due on the way, in order. */
function fakeClock() {
  let now = 0;
  let timers: { at: number; resolve: () => void }[] = [];
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const clock: Clock = {
    now: () => now,
    sleep: (ms) => new Promise<void>((resolve) => timers.push({ at: now + ms, resolve })),
  };
  const advance = async (ms: number) => {
    const target = now + ms;
    await settle();
    for (;;) {
      const due = timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((t) => t !== due);
      now = due.at;
      due.resolve();
      await settle();
    }
    now = target;
    await settle();
  };
  return { clock, advance };
}

const answer = (status = 200, headers: Record<string, string> = {}) => new Response(null, { status, headers });

describe('playground pacing', () => {
  it('starts at most the assumed 3 requests in any second (plus the margin) until told otherwise', async () => {
    const { clock, advance } = fakeClock();
    const pacer = createPacer({ clock, concurrency: 100 });
    const started: number[] = [];
    const all = Array.from({ length: 7 }, () =>
      pacer.send(async () => {
        started.push(clock.now());
        return answer();
      }),
    );
    await advance(5000);
    await Promise.all(all);
    expect(started).toEqual([0, 0, 0, 1100, 1100, 1100, 2200]);
  });

  it("paces to the plan's number from X-RateLimit-Limit", async () => {
    const { clock, advance } = fakeClock();
    const pacer = createPacer({ clock, concurrency: 100 });
    await pacer.send(async () => answer(200, { 'x-ratelimit-limit': '5' }));
    const started: number[] = [];
    const all = Array.from({ length: 6 }, () =>
      pacer.send(async () => {
        started.push(clock.now());
        return answer(200, { 'x-ratelimit-limit': '5' });
      }),
    );
    await advance(5000);
    await Promise.all(all);
    // The first request's start still counts in the window: 4 more at 0, then the next window.
    expect(started).toEqual([0, 0, 0, 0, 1100, 1100]);
  });

  it('holds two at once, each until its response body is read to the end', async () => {
    const { clock, advance } = fakeClock();
    const pacer = createPacer({ clock, rps: 100 });
    const ends: ReadableStreamDefaultController<Uint8Array>[] = [];
    let sent = 0;
    const streaming = () =>
      pacer.send(async () => {
        sent += 1;
        return new Response(new ReadableStream<Uint8Array>({ start: (c) => void ends.push(c) }));
      });
    const first = streaming();
    const second = streaming();
    const third = streaming();
    await advance(10);
    expect(sent).toBe(2);
    // The first body arrives whole and is read: its slot goes to the third.
    ends[0]!.enqueue(new Uint8Array([1, 2]));
    ends[0]!.close();
    expect(new Uint8Array(await (await first).arrayBuffer())).toEqual(new Uint8Array([1, 2]));
    await advance(10);
    expect(sent).toBe(3);
    // A cancelled body frees its slot too.
    await (await second).body!.cancel();
    const fourth = pacer.send(async () => answer());
    await advance(10);
    expect((await fourth).status).toBe(200);
    void third;
  });

  it('frees the slot of a 204 at once, though the browser gives it an empty body stream', async () => {
    const { clock, advance } = fakeClock();
    const pacer = createPacer({ clock, rps: 100, concurrency: 1 });
    // Chromium's fetch answers a 204 with a body stream, which `new Response` refuses for that status.
    const revoked = { status: 204, headers: new Headers(), body: new ReadableStream() } as unknown as Response;
    expect((await pacer.send(async () => revoked)).status).toBe(204);
    const next = pacer.send(async () => answer());
    await advance(10);
    expect((await next).status).toBe(200);
  });

  it("waits a 429's Retry-After and sends once more, saying it waits meanwhile", async () => {
    const { clock, advance } = fakeClock();
    const waiting: boolean[] = [];
    const pacer = createPacer({ clock, onWaiting: (w) => waiting.push(w) });
    const sentAt: number[] = [];
    const replies = [answer(429, { 'retry-after': '2' }), answer(200)];
    const res = pacer.send(async () => {
      sentAt.push(clock.now());
      return replies.shift()!;
    });
    await advance(1999);
    expect(sentAt).toEqual([0]);
    expect(waiting).toEqual([true]);
    await advance(1);
    expect((await res).status).toBe(200);
    expect(sentAt).toEqual([0, 2000]);
    expect(waiting).toEqual([true, false]);
  });

  it('retries only once, and not at all without Retry-After or past the longest wait', async () => {
    const { clock, advance } = fakeClock();
    const pacer = createPacer({ clock, rps: 100 });
    let sent = 0;
    const always = (headers: Record<string, string>) => () =>
      pacer.send(async () => {
        sent += 1;
        return answer(429, headers);
      });
    const twice = always({ 'retry-after': '1' })();
    await advance(1000);
    expect((await twice).status).toBe(429);
    expect(sent).toBe(2);
    sent = 0;
    expect((await always({})()).status).toBe(429);
    // A quota's 429 says to come back much later: not waited for.
    expect((await always({ 'retry-after': '3600' })()).status).toBe(429);
    expect(sent).toBe(2);
  });
});
