import { inspectorUrl } from './full-gc';
import { formatTable, processTable } from './report';
import type { AppSample } from './sampler';

const MB = 1024 * 1024;
const sample = (at: number, rssMb: number, extra: Partial<AppSample> = {}): AppSample => ({
  process: 'gateway',
  at,
  rssBytes: rssMb * MB,
  children: { count: 0, rssBytes: 0 },
  ...extra,
});

describe('the soak report', () => {
  it('aligns names left and figures right, each column as wide as its widest cell', () => {
    expect(
      formatTable(
        ['op', 'p50'],
        [
          ['tts', '120.0'],
          ['introspect', '7.0'],
        ],
      ),
    ).toEqual(['op            p50', '----------  -----', 'tts         120.0', 'introspect    7.0']);
  });

  it('a process row per window: the last sample of the window, the worst loop p99, the most child processes; the sample at the end belongs to the last window', () => {
    const rows = processTable(
      [
        sample(0, 100, { loopP99Seconds: 0.02, children: { count: 2, rssBytes: 10 * MB } }),
        sample(30_000, 110, { loopP99Seconds: 0.05, heapUsedBytes: 40 * MB, handles: 20 }),
        sample(60_000, 120, { loopP99Seconds: 0.01 }),
        sample(120_000, 125, { loopP99Seconds: 0.01 }),
      ],
      60_000,
      2,
    );
    expect(rows.slice(2)).toEqual([
      '1       gateway   110.0     40.0         50.0       20      2 (10.0 MB)',
      '2       gateway   125.0        -         10.0        -       0 (0.0 MB)',
    ]);
  });
});

describe('inspectorUrl', () => {
  it('reads the address Node prints when started with --inspect, and nothing from other output', () => {
    expect(
      inspectorUrl(
        '{"level":30}\nDebugger listening on ws://127.0.0.1:42791/17bb598e-e682-443e-91e6-655024ef20ca\nFor help, see: https://nodejs.org/en/docs/inspector\n',
      ),
    ).toBe('ws://127.0.0.1:42791/17bb598e-e682-443e-91e6-655024ef20ca');
    expect(inspectorUrl('{"level":30,"msg":"listening"}')).toBeUndefined();
  });
});
