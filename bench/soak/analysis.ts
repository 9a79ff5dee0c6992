// The soak's analysis: plain functions over what the run recorded (requests and process samples), so
// the verdict can be checked without running anything. Times are milliseconds since the soak started.

/** One request of the traffic mix: the interface it exercised, when it started, how long it took, and how it ended. */
export interface RequestRecord {
  iface: string;
  startedAt: number;
  ms: number;
  ok: boolean;
  /** Why it failed (status, error message); absent when it succeeded. */
  error?: string;
}

/** One reading of one app process. Metrics are absent for a process without a metrics listener or when a scrape failed. */
export interface ProcessSample {
  process: string;
  at: number;
  rssBytes: number;
  heapUsedBytes?: number;
  loopP99Seconds?: number;
  handles?: number;
  /** Taken right after a full garbage collection the soak asked the process for: its memory then is what it holds. */
  afterFullGc?: boolean;
}

export interface LatencyWindow {
  iface: string;
  /** 0-based index of the window (minute) the requests started in. */
  window: number;
  count: number;
  failed: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface Thresholds {
  /** Least-squares slope of RSS above which a process is said to grow without bound. */
  rssMbPerMin: number;
  /** The same for the V8 heap in use. */
  heapMbPerMin: number;
  /** Median per-window p50 of the last half over that of the first half, above which latency drifts... */
  driftRatio: number;
  /** ...and only when the p50 also rose by more than this many ms (a 2 ms p50 becoming 4 ms is scheduling noise, not drift). */
  driftFloorMs: number;
  /** Samples before this time (ms since start) are left out of the memory fit: warm-up (JIT, heap sizing, connection pools). */
  memoryFrom: number;
}

const MB = 1024 * 1024;

/** Nearest-rank percentile of ascending `sorted` values (NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Slope of the least-squares line through the points, in value units per minute (`at` in ms); 0 for fewer than two distinct times. */
export function slopePerMinute(points: readonly { at: number; value: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanT = points.reduce((s, p) => s + p.at, 0) / n;
  const meanV = points.reduce((s, p) => s + p.value, 0) / n;
  let cov = 0;
  let varT = 0;
  for (const p of points) {
    cov += (p.at - meanT) * (p.value - meanV);
    varT += (p.at - meanT) ** 2;
  }
  return varT === 0 ? 0 : (cov / varT) * 60_000;
}

/** Latency percentiles and failures per interface per window of `windowMs`, by the time each request started. */
export function latencyWindows(records: readonly RequestRecord[], windowMs: number): LatencyWindow[] {
  const groups = new Map<string, { iface: string; window: number; ms: number[]; failed: number }>();
  for (const r of records) {
    const window = Math.floor(r.startedAt / windowMs);
    const key = `${r.iface}\u0000${window}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { iface: r.iface, window, ms: [], failed: 0 }));
    if (r.ok) group.ms.push(r.ms);
    else group.failed += 1;
  }
  return [...groups.values()]
    .map(({ iface, window, ms, failed }) => {
      const sorted = ms.sort((a, b) => a - b);
      return {
        iface,
        window,
        count: sorted.length + failed,
        failed,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        p99: percentile(sorted, 99),
      };
    })
    .sort((a, b) => a.window - b.window || a.iface.localeCompare(b.iface));
}

export interface MemoryGrowth {
  process: string;
  rssMbPerMin: number;
  /** NaN when the process reported no heap (no metrics). */
  heapMbPerMin: number;
  samples: number;
}

/**
 * Per process, the least-squares slope of RSS and heap in use over the samples taken at or after `from`:
 * those taken right after a full garbage collection when the process has any (garbage not yet collected
 * is not growth), all of them otherwise.
 */
export function memoryGrowth(samples: readonly ProcessSample[], from: number): MemoryGrowth[] {
  const byProcess = new Map<string, ProcessSample[]>();
  for (const s of samples) {
    if (s.at < from) continue;
    const list = byProcess.get(s.process) ?? [];
    list.push(s);
    byProcess.set(s.process, list);
  }
  return [...byProcess].map(([process, all]) => {
    const collected = all.filter((s) => s.afterFullGc);
    const list = collected.length > 0 ? collected : all;
    const heap = list
      .filter((s) => s.heapUsedBytes !== undefined)
      .map((s) => ({ at: s.at, value: s.heapUsedBytes! / MB }));
    return {
      process,
      rssMbPerMin: slopePerMinute(list.map((s) => ({ at: s.at, value: s.rssBytes / MB }))),
      heapMbPerMin: heap.length >= 2 ? slopePerMinute(heap) : NaN,
      samples: list.length,
    };
  });
}

export interface LatencyDrift {
  iface: string;
  /** Median of the per-window p50s of the first and of the last half of the windows. */
  firstP50: number;
  lastP50: number;
  ratio: number;
}

/**
 * Per interface, the median of the per-window p50s of the last half of the windows against that of the
 * first half (an odd middle window belongs to neither). The median of windows, not one figure over the
 * half, so one slow window (a major GC, a neighbour's burst) cannot make or hide a drift.
 */
export function latencyDrift(windows: readonly LatencyWindow[], windowCount: number): LatencyDrift[] {
  const half = Math.floor(windowCount / 2);
  const ifaces = [...new Set(windows.map((w) => w.iface))].sort();
  return ifaces.map((iface) => {
    const mine = windows.filter((w) => w.iface === iface && !Number.isNaN(w.p50));
    const firstP50 = median(mine.filter((w) => w.window < half).map((w) => w.p50));
    const lastP50 = median(mine.filter((w) => w.window >= windowCount - half).map((w) => w.p50));
    return { iface, firstP50, lastP50, ratio: lastP50 / firstP50 };
  });
}

export interface Verdict {
  ok: boolean;
  /** One line per reason the run failed; empty when it passed. */
  reasons: string[];
  growth: MemoryGrowth[];
  drift: LatencyDrift[];
  failed: RequestRecord[];
}

/** What the subscribers were owed and got, and what the mix could not start (the counts of its ledgers). */
export interface DeliveryCounts {
  /** Events of committed writes a live subscriber never received, and events received twice or of no write of the run. */
  missing: number;
  duplicated: number;
  unknown: number;
  /** Errors the subscriptions reported. */
  subscriptionErrors: number;
  /** Operations due while the mix's in-flight bound was reached: the platform fell behind the offered rate. */
  skipped: number;
}

export interface SoakRun {
  records: readonly RequestRecord[];
  samples: readonly ProcessSample[];
  delivery: DeliveryCounts;
  windowMs: number;
  windowCount: number;
}

/**
 * Judges a run: no failed request, no lost, doubled or foreign subscription event, nothing skipped, no
 * process whose RSS or heap grows past the thresholds, no interface whose p50 drifts.
 */
export function judge(run: SoakRun, t: Thresholds): Verdict {
  const reasons: string[] = [];
  const d = run.delivery;
  if (d.missing > 0) reasons.push(`${d.missing} subscription event(s) owed and not delivered`);
  if (d.duplicated > 0) reasons.push(`${d.duplicated} subscription event(s) delivered twice`);
  if (d.unknown > 0) reasons.push(`${d.unknown} subscription event(s) of no write of this run`);
  if (d.subscriptionErrors > 0) reasons.push(`${d.subscriptionErrors} subscription error(s)`);
  if (d.skipped > 0) reasons.push(`${d.skipped} operation(s) skipped: the platform fell behind the offered rate`);
  const failed = run.records.filter((r) => !r.ok);
  if (failed.length > 0) {
    const examples = [...new Set(failed.map((r) => `${r.iface}: ${r.error ?? 'failed'}`))].slice(0, 5);
    reasons.push(`${failed.length} request(s) failed, e.g. ${examples.join('; ')}`);
  }
  const interfaces = new Set(run.records.map((r) => r.iface));
  const measured = new Set(run.records.filter((r) => r.ok).map((r) => r.iface));
  for (const iface of interfaces) if (!measured.has(iface)) reasons.push(`${iface}: no request succeeded`);
  if (run.records.length === 0) reasons.push('no request was made');
  const growth = memoryGrowth(run.samples, t.memoryFrom);
  for (const g of growth) {
    if (g.samples < 3) reasons.push(`${g.process}: only ${g.samples} sample(s) to fit memory growth`);
    if (g.rssMbPerMin > t.rssMbPerMin)
      reasons.push(`${g.process}: RSS grows ${g.rssMbPerMin.toFixed(2)} MB/min (bound ${t.rssMbPerMin})`);
    if (g.heapMbPerMin > t.heapMbPerMin)
      reasons.push(`${g.process}: heap grows ${g.heapMbPerMin.toFixed(2)} MB/min (bound ${t.heapMbPerMin})`);
  }
  const drift = latencyDrift(latencyWindows(run.records, run.windowMs), run.windowCount);
  for (const d of drift) {
    if (d.ratio > t.driftRatio && d.lastP50 - d.firstP50 > t.driftFloorMs) {
      reasons.push(
        `${d.iface}: p50 drifts ${d.firstP50.toFixed(1)} → ${d.lastP50.toFixed(1)} ms (${d.ratio.toFixed(2)}x, bound ${t.driftRatio}x and +${t.driftFloorMs} ms)`,
      );
    }
  }
  return { ok: reasons.length === 0, reasons, growth, drift, failed };
}
