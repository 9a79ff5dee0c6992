// The soak's printed report: latency per window and interface, each process per window, and the verdict
// with the figures it was judged on.
import type { LatencyWindow, Thresholds, Verdict } from './analysis';
import type { AppSample } from './sampler';

const MB = 1024 * 1024;

/** The first `left` columns (names) left-aligned, the rest (figures) right-aligned, each as wide as its widest cell. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], left = 1): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i < left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

const ms = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(1));
const mb = (bytes: number | undefined) => (bytes === undefined ? '-' : (bytes / MB).toFixed(1));

/** Window label: `1` … for minutes, `0-10s` … for shorter windows. */
function windowLabel(window: number, windowMs: number): string {
  return windowMs % 60_000 === 0
    ? String(((window + 1) * windowMs) / 60_000)
    : `${(window * windowMs) / 1000}-${((window + 1) * windowMs) / 1000}s`;
}

export function latencyTable(windows: readonly LatencyWindow[], windowMs: number): string[] {
  const unit = windowMs % 60_000 === 0 ? 'minute' : 'window';
  return formatTable(
    [unit, 'interface operation', 'requests', 'failed', 'p50 ms', 'p95 ms', 'p99 ms'],
    windows.map((w) => [
      windowLabel(w.window, windowMs),
      w.iface,
      String(w.count),
      String(w.failed),
      ms(w.p50),
      ms(w.p95),
      ms(w.p99),
    ]),
    2,
  );
}

/**
 * Per window and process: RSS, heap in use and open handles at the window's last sample, the worst
 * event-loop p99 of the window's samples, and the most processes it had started at once (with their RSS
 * then). The sample taken as the run ends belongs to its last window.
 */
export function processTable(samples: readonly AppSample[], windowMs: number, windowCount: number): string[] {
  const windowOf = (at: number) => Math.min(windowCount - 1, Math.floor(at / windowMs));
  const groups = new Map<string, AppSample[]>();
  for (const s of samples) {
    const key = `${windowOf(s.at)}\u0000${s.process}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const rows = [...groups.values()].map((list) => {
    const last = list.at(-1)!;
    const loops = list.flatMap((s) => (s.loopP99Seconds === undefined ? [] : [s.loopP99Seconds * 1000]));
    const busiest = list.reduce((a, b) => (b.children.count > a.children.count ? b : a));
    return [
      windowLabel(windowOf(last.at), windowMs),
      last.process,
      mb(last.rssBytes),
      mb(last.heapUsedBytes),
      loops.length ? Math.max(...loops).toFixed(1) : '-',
      last.handles === undefined ? '-' : String(last.handles),
      `${busiest.children.count} (${mb(busiest.children.rssBytes)} MB)`,
    ];
  });
  const unit = windowMs % 60_000 === 0 ? 'minute' : 'window';
  return formatTable([unit, 'process', 'RSS MB', 'heap MB', 'loop p99 ms', 'handles', 'child processes'], rows, 2);
}

export function verdictLines(verdict: Verdict, t: Thresholds): string[] {
  const growth = formatTable(
    ['process', 'samples', 'RSS MB/min', 'heap MB/min'],
    verdict.growth.map((g) => [
      g.process,
      String(g.samples),
      g.rssMbPerMin.toFixed(2),
      Number.isNaN(g.heapMbPerMin) ? '-' : g.heapMbPerMin.toFixed(2),
    ]),
  );
  const drift = formatTable(
    ['interface operation', 'p50 first half ms', 'p50 last half ms', 'ratio'],
    verdict.drift.map((d) => [d.iface, ms(d.firstP50), ms(d.lastP50), d.ratio.toFixed(2)]),
  );
  return [
    `Memory growth from ${(t.memoryFrom / 1000).toFixed(0)} s on (least-squares slope; bounds: RSS ${t.rssMbPerMin} MB/min, heap ${t.heapMbPerMin} MB/min):`,
    ...growth,
    '',
    `Latency drift (median of the windows' p50, last half against first half; bound ${t.driftRatio}x and +${t.driftFloorMs} ms):`,
    ...drift,
    '',
    verdict.ok ? 'Verdict: PASS' : 'Verdict: FAIL',
    ...verdict.reasons.map((r) => `  - ${r}`),
  ];
}
