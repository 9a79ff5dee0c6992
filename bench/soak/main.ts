// The soak benchmark's command line (bench/soak/bench.mjs runs it): the run, its tables and its verdict;
// exit code 1 when the verdict fails.
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { Thresholds } from './analysis';
import { latencyTable, processTable, verdictLines } from './report';
import { runSoak } from './soak';

/**
 * Bounds of the full run (10 minutes at 5 operations/s by default), judged on its last half.
 *
 * Memory is fitted over the samples taken right after a full garbage collection (every 30 s: 11 of them
 * in the last 5 minutes), so V8's sawtooth is not in the fit. Measured at 5 operations/s (4-minute
 * development runs, 2 cores): the heap after a collection creeps 0.15-0.5 MB/min through the first
 * minutes (caches filling) and jitters by ±0.4 MB, which moves an 11-point fit over 5 minutes by about
 * 0.06 MB/min; RSS after a collection jitters by up to ±3 MB (the worker), about 0.3 MB/min of fit.
 * - heap 1 MB/min: twice the largest creep measured, far above the jitter. A leak of every request's
 *   payload crosses it: the gateway serves all 300 operations a minute, so retaining 3.4 kB per request
 *   (a request's headers and body, its identity) does; the worker runs 115 jobs a minute, so keeping
 *   each job's audio (15.5 kB on average for the mix's sentence at mp3_22050_32) does; content and auth see
 *   about 90 a minute each, so 11 kB per request does.
 * - RSS 2 MB/min: about 7 times the fit's jitter; catches what the heap does not count, Buffers such as
 *   audio chunks held outside the V8 heap: 7 kB per gateway request, 17 kB per synthesis job.
 * Latency: the median over the minutes of each half of each operation's per-minute p50, so one slow
 * minute (a neighbour's burst, a major collection) moves neither half. On an idle machine the per-minute
 * p50 stays within ±20 % of itself; 1.5x is a drift no such noise makes, and +5 ms keeps a p50 of a few
 * milliseconds (introspection: 6 ms) that moves by the scheduler's noise from counting as one.
 */
export const SOAK_THRESHOLDS: Omit<Thresholds, 'memoryFrom'> = {
  heapMbPerMin: 1,
  rssMbPerMin: 2,
  driftRatio: 1.5,
  driftFloorMs: 5,
};

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string', default: '10' },
      rate: { type: 'string', default: '5' },
      'sample-seconds': { type: 'string', default: '5' },
      'full-gc-seconds': { type: 'string', default: '30' },
    },
  });
  const durationMs = Number(values.minutes) * 60_000;
  const ratePerSecond = Number(values.rate);
  const sampleEveryMs = Number(values['sample-seconds']) * 1000;
  const fullGcEveryMs = Number(values['full-gc-seconds']) * 1000;
  if (
    !(durationMs >= 120_000) ||
    !(ratePerSecond > 0) ||
    !(sampleEveryMs >= 1000) ||
    !(fullGcEveryMs >= sampleEveryMs)
  ) {
    throw new Error(
      '--minutes ≥ 2 (the verdict compares two halves of whole minutes), --rate > 0, --sample-seconds ≥ 1, --full-gc-seconds ≥ --sample-seconds',
    );
  }
  const thresholds: Thresholds = { ...SOAK_THRESHOLDS, memoryFrom: durationMs / 2 };
  console.log(`load average before: ${loadAverage()} (${os.availableParallelism()} cores)`);
  const result = await runSoak({
    durationMs,
    windowMs: 60_000,
    ratePerSecond,
    sampleEveryMs,
    fullGcEveryMs,
    thresholds,
    log: (line) => console.log(line),
  });
  console.log(`load average after: ${loadAverage()}`);
  console.log('');
  console.log('Latency per minute (by when each request started; failed requests counted apart):');
  for (const line of latencyTable(result.windows, 60_000)) console.log(line);
  console.log('');
  console.log('Processes per minute:');
  for (const line of processTable(result.samples, 60_000, result.windowCount)) console.log(line);
  console.log('');
  const d = result.delivery;
  console.log(
    `Subscriptions: ${d.missing} owed events missing, ${d.duplicated} doubled, ${d.unknown} foreign, ${d.subscriptionErrors} errors; ${d.skipped} operations skipped`,
  );
  console.log(
    `Speech: ${result.generations.count} generations, ${(result.generations.meanAudioBytes / 1024).toFixed(1)} kB of audio each on average`,
  );
  for (const line of verdictLines(result.verdict, thresholds)) console.log(line);
  return result.verdict.ok ? 0 : 1;
}
