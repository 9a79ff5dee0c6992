import {
  judge,
  latencyDrift,
  latencyWindows,
  memoryGrowth,
  median,
  percentile,
  slopePerMinute,
  type DeliveryCounts,
  type ProcessSample,
  type RequestRecord,
  type Thresholds,
} from './analysis';

const MB = 1024 * 1024;
const delivered: DeliveryCounts = { missing: 0, duplicated: 0, unknown: 0, subscriptionErrors: 0, skipped: 0 };
const thresholds: Thresholds = {
  rssMbPerMin: 2,
  heapMbPerMin: 1,
  driftRatio: 1.5,
  driftFloorMs: 5,
  memoryFrom: 300_000,
};

/** A sample every 5 s for `minutes`, RSS and heap from the given functions of the time in minutes. */
function samples(
  process: string,
  minutes: number,
  rssMb: (min: number) => number,
  heapMb: (min: number) => number,
): ProcessSample[] {
  const out: ProcessSample[] = [];
  for (let at = 0; at <= minutes * 60_000; at += 5_000)
    out.push({ process, at, rssBytes: rssMb(at / 60_000) * MB, heapUsedBytes: heapMb(at / 60_000) * MB });
  return out;
}

/** `perWindow` requests of `iface` per minute for `minutes`, each taking `ms(minute)`. */
function requests(iface: string, minutes: number, ms: (minute: number) => number, perWindow = 20): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let m = 0; m < minutes; m += 1)
    for (let i = 0; i < perWindow; i += 1) out.push({ iface, startedAt: m * 60_000 + i * 1000, ms: ms(m), ok: true });
  return out;
}

describe('percentile and median', () => {
  it('nearest rank: p50 of 1..10 is 5, p95 and p99 are 10, p0 is the smallest', () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect([percentile(xs, 50), percentile(xs, 95), percentile(xs, 99), percentile(xs, 0)]).toEqual([5, 10, 10, 1]);
    expect(percentile([], 50)).toBeNaN();
  });
  it('median of an even count is the mean of the middle two', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([3, 1, 2])).toBe(2);
  });
});

describe('slopePerMinute', () => {
  it('recovers the slope of a straight line, per minute from millisecond times', () => {
    const points = Array.from({ length: 10 }, (_, i) => ({ at: i * 30_000, value: 100 + 3 * (i / 2) }));
    expect(slopePerMinute(points)).toBeCloseTo(3, 9);
  });
  it('is 0 for a flat series, a single point and a single time', () => {
    expect(
      slopePerMinute([
        { at: 0, value: 5 },
        { at: 60_000, value: 5 },
      ]),
    ).toBe(0);
    expect(slopePerMinute([{ at: 0, value: 5 }])).toBe(0);
    expect(
      slopePerMinute([
        { at: 1000, value: 1 },
        { at: 1000, value: 9 },
      ]),
    ).toBe(0);
  });
  it('a sawtooth of whole teeth (height A, period P) over a window T leaves a slope of only A·P/T², not its climb A/P', () => {
    // 20 MB climbs and drops every minute over 5 minutes: 20 MB/min while climbing, 20·1/5² = 0.8 MB/min fitted.
    const points = Array.from({ length: 60 }, (_, i) => ({ at: i * 5_000, value: 100 + ((i % 12) / 12) * 20 }));
    expect(slopePerMinute(points)).toBeCloseTo(0.8, 1);
  });
});

describe('latencyWindows', () => {
  it('groups by interface and the window a request started in, counting failures apart from the percentiles', () => {
    const records: RequestRecord[] = [
      { iface: 'tts', startedAt: 10, ms: 30, ok: true },
      { iface: 'tts', startedAt: 59_999, ms: 10, ok: true },
      { iface: 'tts', startedAt: 20, ms: 999, ok: false, error: '500' },
      { iface: 'tts', startedAt: 60_000, ms: 50, ok: true },
      { iface: 'auth', startedAt: 5, ms: 2, ok: true },
    ];
    expect(latencyWindows(records, 60_000)).toEqual([
      { iface: 'auth', window: 0, count: 1, failed: 0, p50: 2, p95: 2, p99: 2 },
      { iface: 'tts', window: 0, count: 3, failed: 1, p50: 10, p95: 30, p99: 30 },
      { iface: 'tts', window: 1, count: 1, failed: 0, p50: 50, p95: 50, p99: 50 },
    ]);
  });
});

describe('memoryGrowth', () => {
  it('fits only the samples from the given time on, per process', () => {
    const leak = samples(
      'gateway',
      10,
      (m) => (m < 5 ? 100 + 20 * m : 200 + 4 * (m - 5)),
      (m) => (m < 5 ? 30 + 10 * m : 80 + 3 * (m - 5)),
    );
    const flat = samples(
      'auth',
      10,
      () => 90,
      () => 25,
    );
    const [gateway, auth] = memoryGrowth([...leak, ...flat], 300_000);
    expect(gateway).toMatchObject({ process: 'gateway', samples: 61 });
    expect(gateway!.rssMbPerMin).toBeCloseTo(4, 6);
    expect(gateway!.heapMbPerMin).toBeCloseTo(3, 6);
    expect(auth).toMatchObject({ process: 'auth', rssMbPerMin: 0, heapMbPerMin: 0 });
  });
  it('fits only the samples taken right after a full collection when a process has them: the garbage between is not growth', () => {
    // Garbage climbs 20 MB/min between collections; what survives a collection stays at 50 MB.
    const list = samples(
      'gateway',
      10,
      () => 150,
      (m) => 50 + 20 * (m % 0.5),
    ).map((s) => ({ ...s, afterFullGc: s.at % 30_000 === 0 }));
    expect(memoryGrowth(list, 0)[0]).toMatchObject({ heapMbPerMin: 0, samples: 21 });
    expect(
      memoryGrowth(
        list.map((s) => ({ ...s, afterFullGc: false })),
        0,
      )[0]!.heapMbPerMin,
    ).not.toBe(0);
  });
  it('a process without metrics has RSS growth only', () => {
    const [worker] = memoryGrowth(
      [
        { process: 'children', at: 0, rssBytes: MB },
        { process: 'children', at: 60_000, rssBytes: 2 * MB },
      ],
      0,
    );
    expect(worker!.rssMbPerMin).toBeCloseTo(1, 9);
    expect(worker!.heapMbPerMin).toBeNaN();
  });
});

describe('latencyDrift', () => {
  it('compares the median per-window p50 of the last half with the first half, leaving an odd middle window out', () => {
    const windows = latencyWindows(
      requests('tts', 5, (m) => [10, 12, 1000, 20, 22][m]!),
      60_000,
    );
    expect(latencyDrift(windows, 5)).toEqual([{ iface: 'tts', firstP50: 11, lastP50: 21, ratio: 21 / 11 }]);
  });
  it('one slow window in a half moves the median of three windows not at all', () => {
    const windows = latencyWindows(
      requests('auth', 6, (m) => [5, 5, 5, 5, 80, 5][m]!),
      60_000,
    );
    expect(latencyDrift(windows, 6)[0]!.ratio).toBe(1);
  });
});

describe('judge', () => {
  const steady = {
    samples: samples(
      'gateway',
      10,
      () => 150,
      () => 60,
    ),
    delivery: delivered,
    windowMs: 60_000,
    windowCount: 10,
  };

  it('passes a run with flat memory, steady latency and no failure', () => {
    const verdict = judge({ ...steady, records: requests('tts', 10, () => 40) }, thresholds);
    expect(verdict).toMatchObject({ ok: true, reasons: [] });
  });

  it('fails on any failed request and says which interface and why', () => {
    const records = [
      ...requests('tts', 10, () => 40),
      { iface: 'graphql', startedAt: 1000, ms: 5, ok: false, error: 'subscription closed' },
    ];
    const verdict = judge({ ...steady, records }, thresholds);
    expect(verdict.ok).toBe(false);
    expect(verdict.reasons).toContain('1 request(s) failed, e.g. graphql: subscription closed');
    expect(verdict.reasons).toContain('graphql: no request succeeded');
  });

  it('fails when RSS or heap of a process grows past its bound over the last half, not for warm-up growth before it', () => {
    const warmUpOnly = samples(
      'content',
      10,
      (m) => (m < 5 ? 100 + 20 * m : 200),
      (m) => (m < 5 ? 30 + 10 * m : 80),
    );
    expect(judge({ ...steady, samples: warmUpOnly, records: requests('tts', 10, () => 40) }, thresholds).ok).toBe(true);
    const leaking = samples(
      'content',
      10,
      (m) => 100 + 2.5 * m,
      (m) => 30 + 1.2 * m,
    );
    const verdict = judge({ ...steady, samples: leaking, records: requests('tts', 10, () => 40) }, thresholds);
    expect(verdict.reasons).toEqual([
      'content: RSS grows 2.50 MB/min (bound 2)',
      'content: heap grows 1.20 MB/min (bound 1)',
    ]);
  });

  it('fails when an interface p50 drifts past both the ratio and the floor, and not when only one is passed', () => {
    const drifting = judge({ ...steady, records: requests('tts', 10, (m) => 40 + 10 * m) }, thresholds);
    expect(drifting.reasons).toEqual(['tts: p50 drifts 60.0 → 110.0 ms (1.83x, bound 1.5x and +5 ms)']);
    // 2 ms → 4 ms is 2x but only +2 ms: scheduling noise at that scale, not drift.
    expect(judge({ ...steady, records: requests('introspection', 10, (m) => (m < 5 ? 2 : 4)) }, thresholds).ok).toBe(
      true,
    );
    // +8 ms on a 100 ms p50 passes the floor but not the ratio.
    expect(judge({ ...steady, records: requests('tts', 10, (m) => (m < 5 ? 100 : 108)) }, thresholds).ok).toBe(true);
  });

  it('fails a run that made no request, or too few samples to fit', () => {
    const verdict = judge(
      { ...steady, samples: [{ process: 'auth', at: 400_000, rssBytes: MB }], records: [] },
      thresholds,
    );
    expect(verdict.reasons).toEqual(['no request was made', 'auth: only 1 sample(s) to fit memory growth']);
  });

  it('fails on subscription events lost, doubled or foreign, subscription errors, and operations the platform could not keep up with', () => {
    const records = requests('tts', 10, () => 40);
    for (const [key, reason] of [
      ['missing', '2 subscription event(s) owed and not delivered'],
      ['duplicated', '2 subscription event(s) delivered twice'],
      ['unknown', '2 subscription event(s) of no write of this run'],
      ['subscriptionErrors', '2 subscription error(s)'],
      ['skipped', '2 operation(s) skipped: the platform fell behind the offered rate'],
    ] as const) {
      expect(judge({ ...steady, records, delivery: { ...delivered, [key]: 2 } }, thresholds).reasons).toEqual([reason]);
    }
  });
});
