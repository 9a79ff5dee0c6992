import {
  deliveryReport,
  summarize,
  weightedSequence,
  type Ledgers,
  type RequestRecord,
  type SubscriberLedger,
} from './traffic-mix';

const write = (marker: string, start: number, committed = true) => ({
  kind: 'post' as const,
  marker,
  start,
  committed,
});
const subscriber = (
  index: number,
  sessions: SubscriberLedger['sessions'],
  received: Record<string, number>,
): SubscriberLedger => ({
  index,
  sessions,
  received: new Map(Object.entries(received)),
  errors: [],
});

describe('the traffic mix’s bookkeeping', () => {
  it('the weighted sequence follows the weights exactly over one cycle and leaves out weight 0', () => {
    const next = weightedSequence({ tts: 3, token: 1, 'create-post': 2, introspect: 0 });
    const counts: Record<string, number> = {};
    for (let i = 0; i < 60; i += 1) {
      const op = next();
      counts[op] = (counts[op] ?? 0) + 1;
    }
    expect(counts).toEqual({ tts: 30, token: 10, 'create-post': 20 });
    expect(() => weightedSequence({ tts: 0 })).toThrow(/at least one operation/);
  });

  it('summarize counts successes and failures per operation, keyed by status and code, with latency percentiles', () => {
    const rec = (
      operation: RequestRecord['operation'],
      latencyMs: number,
      outcome: RequestRecord['outcome'],
    ): RequestRecord => ({
      interface: operation === 'token' ? 'oauth' : 'speech',
      operation,
      gateway: 'g',
      start: 0,
      latencyMs,
      outcome,
    });
    const records = [
      ...Array.from({ length: 18 }, (_, i) => rec('tts', i + 1, { ok: true, status: 200 })),
      rec('tts', 500, { ok: false, status: 503, code: 'error' }),
      rec('tts', 900, { ok: false, code: 'ECONNREFUSED' }),
      rec('token', 5, { ok: false, status: 503, code: 'temporarily_unavailable' }),
    ];
    const summary = summarize(records, 2, 1);
    expect(summary.skipped).toBe(2);
    expect(summary.inFlight).toBe(1);
    expect(summary.operations.tts).toEqual({
      count: 20,
      ok: 18,
      failures: { '503 error': 1, ECONNREFUSED: 1 },
      p50Ms: 10,
      p95Ms: 500,
      maxMs: 900,
    });
    expect(summary.operations.token).toMatchObject({ count: 1, ok: 0, failures: { '503 temporarily_unavailable': 1 } });
    expect(summary.operations['tts-stream']).toBeUndefined();
  });

  it('a continuously connected subscriber is owed every committed write started after it went live', () => {
    const ledgers: Ledgers = {
      writes: [write('a', 5), write('b', 20), write('c', 30), write('d', 40, false)],
      subscribers: [subscriber(0, [{ connectedAt: 1, liveAt: 10, gateway: 'g' }], { b: 1 })],
      generations: [],
    };
    const report = deliveryReport(ledgers);
    // a started before the subscription was known live; d never committed: neither is owed.
    expect(report.missing).toEqual(new Map([[0, ['c']]]));
    expect(report.owed).toBe(2);
    expect(deliveryReport(ledgers, { startedBefore: 30 }).missing.size).toBe(0);
  });

  it('a reconnected subscriber is owed only writes after its new session went live; duplicates and unknown markers are reported', () => {
    const ledgers: Ledgers = {
      writes: [write('a', 15), write('b', 25), write('c', 45), write('lost-answer', 50, false)],
      subscribers: [
        subscriber(
          0,
          [
            { connectedAt: 1, liveAt: 10, endedAt: 20, gateway: 'g1' },
            { connectedAt: 30, liveAt: 40, gateway: 'g2' },
          ],
          { a: 1, c: 2, 'lost-answer': 1, stranger: 1 },
        ),
        // Never live again after its reconnection: nothing is owed to it.
        subscriber(
          1,
          [
            { connectedAt: 1, liveAt: 10, endedAt: 20, gateway: 'g1' },
            { connectedAt: 30, gateway: 'g2' },
          ],
          {},
        ),
      ],
      generations: [],
    };
    const report = deliveryReport(ledgers);
    // b was written while subscriber 0 reconnected: not owed. c was delivered twice.
    expect(report.missing.size).toBe(0);
    expect(report.duplicated).toEqual(new Map([[0, ['c']]]));
    // An event of an attempt whose answer was lost is fine; one no attempt made is not.
    expect(report.unknown).toEqual(['stranger']);
  });
});
