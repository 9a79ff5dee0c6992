// One soak: the platform started, the traffic mix driven at a steady rate for the run's length while
// every app process is sampled, then the run judged. The benchmark (bench/soak/bench.mjs) and its
// one-minute CI form (tests/soak) both run this, with their own length, windows and thresholds.
import { setTimeout as sleep } from 'node:timers/promises';
import { deliveryReport, type TrafficMix } from '@platform/testing';
import {
  judge,
  latencyWindows,
  type DeliveryCounts,
  type LatencyWindow,
  type RequestRecord,
  type Thresholds,
  type Verdict,
} from './analysis';
import { startSoakPlatform } from './platform';
import { startSampler, type AppSample } from './sampler';
import { soakTraffic } from './traffic';

export interface SoakOptions {
  durationMs: number;
  /** Latency percentiles are taken per window of this length (a minute in the benchmark). */
  windowMs: number;
  /** Operations per second the traffic mix starts, over all interfaces. */
  ratePerSecond: number;
  sampleEveryMs: number;
  /** How often the sampler asks every process for a full garbage collection before a sample (full-gc.ts). */
  fullGcEveryMs: number;
  thresholds: Thresholds;
  log: (line: string) => void;
}

export interface SoakResult {
  records: RequestRecord[];
  samples: AppSample[];
  windows: LatencyWindow[];
  /** Windows of the run (the last may be short). */
  windowCount: number;
  delivery: DeliveryCounts;
  /** Generations the mix asked for and the mean size of their audio (what a leak of each would retain). */
  generations: { count: number; meanAudioBytes: number };
  verdict: Verdict;
}

/** The mix's ledgers counted for the verdict: what the subscribers lost, got twice or got of no write, and what was skipped. */
function deliveryCounts(mix: TrafficMix): DeliveryCounts {
  const ledgers = mix.ledgers();
  const report = deliveryReport(ledgers);
  const count = (m: Map<number, string[]>) => [...m.values()].reduce((n, markers) => n + markers.length, 0);
  return {
    missing: count(report.missing),
    duplicated: count(report.duplicated),
    unknown: report.unknown.length,
    subscriptionErrors: ledgers.subscribers.reduce((n, s) => n + s.errors.length, 0),
    skipped: mix.summary().skipped,
  };
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const { platform, watched } = await startSoakPlatform(options.durationMs);
  let mix: TrafficMix | undefined;
  let mixStopped: Promise<void> | undefined;
  try {
    mix = await soakTraffic(platform, options.ratePerSecond);
    await mix.start();
    const startedAt = Date.now();
    options.log(
      `traffic: ${options.ratePerSecond} operations/s for ${options.durationMs / 1000} s; sampling ${watched.map((p) => p.name).join(', ')} every ${options.sampleEveryMs / 1000} s, after a full collection every ${options.fullGcEveryMs / 1000} s`,
    );
    const sampler = startSampler(
      watched,
      { everyMs: options.sampleEveryMs, fullGcEveryMs: options.fullGcEveryMs },
      () => Date.now() - startedAt,
    );
    // The run's length is what is measured: a fixed period, not a wait for a condition.
    for (let elapsed = 60_000; elapsed < options.durationMs; elapsed += 60_000) {
      await sleep(startedAt + elapsed - Date.now());
      options.log(`${elapsed / 60_000} min: ${mix.records().length} requests`);
    }
    await sleep(Math.max(0, startedAt + options.durationMs - Date.now()));
    // The mix's clock stops at once (then it drains what is in flight and lets owed events arrive), and the
    // sampler with it: samples of the idle platform afterwards would bend the fit down.
    mixStopped = mix.stop();
    const samples = await sampler.stop();
    await mixStopped;
    const records = mix.records().map((r) => ({
      iface: `${r.interface} ${r.operation}`,
      startedAt: Math.max(0, r.start - startedAt),
      ms: r.latencyMs,
      ok: r.outcome.ok,
      ...(r.outcome.ok
        ? {}
        : { error: [r.outcome.status, r.outcome.code, r.outcome.message].filter((v) => v !== undefined).join(' ') }),
    }));
    const delivery = deliveryCounts(mix);
    const windowCount = Math.ceil(options.durationMs / options.windowMs);
    const verdict = judge({ records, samples, delivery, windowMs: options.windowMs, windowCount }, options.thresholds);
    const generations = mix.ledgers().generations;
    const meanAudioBytes = generations.reduce((sum, g) => sum + g.audioBytes, 0) / Math.max(1, generations.length);
    return {
      records,
      samples,
      windows: latencyWindows(records, options.windowMs),
      windowCount,
      delivery,
      generations: { count: generations.length, meanAudioBytes },
      verdict,
    };
  } finally {
    // A run cut short by an error stops its traffic too (the subscribers would otherwise reconnect for ever).
    if (mix && !mixStopped) await mix.stop(0);
    for (const p of watched) p.inspector?.close();
    await platform.stop();
  }
}
