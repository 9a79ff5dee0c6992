import { messageBucket } from '../src/limits/message-rate';

/** A clock the test moves by hand. */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

const take = (bucket: () => boolean, n: number) => Array.from({ length: n }, () => bucket()).filter(Boolean).length;

describe('a socket’s message budget (token bucket)', () => {
  it('allows the burst at once, then refuses', () => {
    const t = clock();
    const bucket = messageBucket({ perSecond: 2, burst: 5 }, t.now);
    expect(take(bucket, 5)).toBe(5);
    expect(bucket()).toBe(false);
  });

  it('refills at the rate per second, one message per token', () => {
    const t = clock();
    const bucket = messageBucket({ perSecond: 10, burst: 10 }, t.now);
    expect(take(bucket, 10)).toBe(10);
    t.advance(99);
    expect(bucket()).toBe(false); // 0.99 of a token: not yet one
    t.advance(1);
    expect(bucket()).toBe(true);
    t.advance(500);
    expect(take(bucket, 10)).toBe(5);
  });

  it('does not save more than the burst over a long quiet spell', () => {
    const t = clock();
    const bucket = messageBucket({ perSecond: 10, burst: 3 }, t.now);
    t.advance(60_000);
    expect(take(bucket, 10)).toBe(3);
  });

  it('takes nothing for a refused message: a steady client at the rate is served', () => {
    const t = clock();
    const bucket = messageBucket({ perSecond: 4, burst: 1 }, t.now);
    expect(bucket()).toBe(true);
    expect(bucket()).toBe(false);
    expect(bucket()).toBe(false);
    // A quarter second later a whole token has come back, the refusals having cost none.
    t.advance(250);
    expect(bucket()).toBe(true);
    for (let i = 0; i < 20; i += 1) {
      t.advance(250);
      expect(bucket()).toBe(true);
    }
  });
});
