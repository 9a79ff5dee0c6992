// Reads each app process's memory, event-loop delay and open handles: from its Prometheus metrics
// (prom-client's default metrics on the app's METRICS_PORT listener) and, for what has no metrics,
// from /proc: the process's own RSS when a scrape fails, and the processes it started (the synthesis
// worker's eSpeak NG and encoder runs), which are counted but not judged: they live for one
// job each, so their RSS at an instant says whether a job was running, not whether memory leaks.
import fs from 'node:fs';
import { scrapeMetrics, sumOf } from '@platform/testing';
import type { ProcessSample } from './analysis';
import type { Inspector } from './full-gc';

export interface WatchedProcess {
  name: string;
  pid: number;
  /** `http://127.0.0.1:<METRICS_PORT>`; absent: RSS from /proc only. */
  metricsUrl?: string;
  /** The process's V8 inspector, to ask for full garbage collections; absent: none are asked for. */
  inspector?: Inspector;
}

/** A sample with the process's children (processes it started that were alive at that instant). */
export interface AppSample extends ProcessSample {
  children: { count: number; rssBytes: number };
}

const PAGE_KB = 1024;

/** Resident set size of `pid` in bytes (`VmRSS` of /proc/<pid>/status), or 0 when the process is gone. */
export function procRss(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * PAGE_KB : 0;
  } catch {
    return 0;
  }
}

/** Parent of each process, from /proc/<pid>/stat (the field after the state, past the parenthesised name, which may hold spaces). */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      map.set(Number(entry), Number(fields[1]));
    } catch {
      // exited between the listing and the read
    }
  }
  return map;
}

/** Every process below `pid` (children, their children, ...). */
export function descendants(pid: number, parentOf: Map<number, number> = parents()): number[] {
  const found: number[] = [];
  for (const [child, parent] of parentOf) {
    if (parent === pid) found.push(child, ...descendants(child, parentOf));
  }
  return found;
}

/** One reading of one process; metrics that did not answer are left out, RSS then comes from /proc. */
export async function sampleProcess(p: WatchedProcess, at: number, parentOf: Map<number, number>): Promise<AppSample> {
  const children = descendants(p.pid, parentOf);
  const base = {
    process: p.name,
    at,
    rssBytes: procRss(p.pid),
    children: { count: children.length, rssBytes: children.reduce((sum, c) => sum + procRss(c), 0) },
  };
  if (!p.metricsUrl) return base;
  try {
    const metrics = await scrapeMetrics(p.metricsUrl);
    return {
      ...base,
      rssBytes: sumOf(metrics, 'process_resident_memory_bytes'),
      heapUsedBytes: sumOf(metrics, 'nodejs_heap_size_used_bytes'),
      loopP99Seconds: sumOf(metrics, 'nodejs_eventloop_lag_p99_seconds'),
      handles: sumOf(metrics, 'nodejs_active_handles_total'),
    };
  } catch {
    return base;
  }
}

export interface SamplerTiming {
  everyMs: number;
  /** Every sample this many ms apart (rounded to whole samples, from the first) is preceded by a full collection in every process. */
  fullGcEveryMs: number;
}

/**
 * Samples every process every `everyMs` until stopped; `stop()` takes a last sample after a full
 * collection and resolves with every sample taken. A reading is never started before the previous one
 * ended, so a slow scrape cannot pile up.
 */
export function startSampler(
  processes: readonly WatchedProcess[],
  timing: SamplerTiming,
  clock: () => number,
): { stop: () => Promise<AppSample[]> } {
  const samples: AppSample[] = [];
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const gcEvery = Math.max(1, Math.round(timing.fullGcEveryMs / timing.everyMs));
  let count = 0;
  const read = async (collect: boolean) => {
    const collected = collect
      ? await Promise.all(
          processes.map(
            (p) =>
              p.inspector?.collectGarbage().then(
                () => true,
                () => false,
              ) ?? false,
          ),
        )
      : [];
    const parentOf = parents();
    const at = clock();
    const taken = await Promise.all(processes.map((p) => sampleProcess(p, at, parentOf)));
    samples.push(...taken.map((s, i) => (collected[i] ? { ...s, afterFullGc: true } : s)));
  };
  const tick = () => {
    current = read(count++ % gcEvery === 0);
    void current.finally(() => {
      if (!stopped) timer = setTimeout(tick, Math.max(0, timing.everyMs - (clock() % timing.everyMs)));
    });
  };
  tick();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current;
      // The run's end is a point of every fit: the last reading follows a full collection too.
      await read(true);
      return samples;
    },
  };
}
