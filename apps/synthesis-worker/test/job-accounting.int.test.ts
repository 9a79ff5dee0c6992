import type { Redis } from 'ioredis';
import { createLogger } from '@platform/logger';
import { metricsRegistry } from '@platform/metrics';
import { cancelKey, createFrameWriter, audioStreamKey, ownerKey, type SynthesisJobData } from '@platform/speech-jobs';
import { connectRedis } from '@platform/stores';
import { stackEnv, uniqueName } from '@platform/testing';
import { workerMetrics } from '../src/synthesis/metrics';
import { processJob, type ProcessDeps } from '../src/synthesis/process-job';
import { synthesisJob } from './synthesis-job';

/**
 * The worker's job counters tell the truth: every attempt that ends was counted started (so
 * started minus ended, the jobs in hand, never goes negative, docs/operations.md "Metrics"),
 * failures carry their reason, and a takeover is counted with its stall.
 */

let redis: Redis;
const prefix = uniqueName('job-accounting');
beforeAll(async () => {
  redis = await connectRedis(stackEnv().REDIS_URL);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

function job(overrides: Partial<SynthesisJobData> = {}): SynthesisJobData {
  return synthesisJob(prefix, overrides);
}

function deps(worker: string, takeovers: number): ProcessDeps {
  return {
    redis,
    logger: createLogger('job-accounting-test', 'silent'),
    queue: 'synthesis',
    enqueuedAt: Date.now(),
    attempt: { worker, takeovers },
  };
}

type Labels = Record<string, string>;
interface Sample {
  name: string;
  value: number;
  labels: Record<string, string | number>;
}

/** Every sample of the process registry the worker's metrics are on (one per test file). */
async function samplesNow(): Promise<Sample[]> {
  const metrics = await metricsRegistry.getMetricsAsJSON();
  return metrics.flatMap((m) =>
    (m.values as { metricName?: string; value: number; labels: Record<string, string | number> }[]).map((v) => ({
      ...v,
      name: v.metricName ?? m.name,
    })),
  );
}

/** The sum of the samples named `sample` (all label sets, or those matching `labels`). */
function sum(samples: Sample[], sample: string, labels: Labels): number {
  return samples
    .filter((v) => v.name === sample)
    .filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
    .reduce((n, v) => n + v.value, 0);
}

/** What a test adds to the counters: `added(sample, labels)` is the sum now minus the sum when `counting()` was called. */
async function counting(): Promise<(sample: string, labels?: Labels) => Promise<number>> {
  const before = await samplesNow();
  return async (sample, labels = {}) => sum(await samplesNow(), sample, labels) - sum(before, sample, labels);
}

type Added = Awaited<ReturnType<typeof counting>>;
async function inHand(added: Added): Promise<number> {
  return (await added('synthesis_jobs_started_total')) - (await added('synthesis_jobs_total'));
}

describe('jobs in hand (started minus ended)', () => {
  it('stay at zero after a duplicate and an expired job: neither is an end without a start', async () => {
    const added = await counting();
    const data = job();
    expect(await processJob(data, deps('host:1', 0))).toBe('complete');
    // Handed out again after it ended: a duplicate.
    expect(await processJob(data, deps('host:2', 1))).toBe('duplicate');
    // Taken after the gateway gave up on it: expired.
    expect(await processJob(job({ deadlineAt: Date.now() - 1 }), deps('host:1', 0))).toBe('expired');
    expect(await added('synthesis_jobs_total', { outcome: 'duplicate' })).toBe(1);
    expect(await added('synthesis_jobs_total', { outcome: 'expired' })).toBe(1);
    expect(await inHand(added)).toBe(0);
  }, 60_000);

  it('stay at zero after a takeover that finds its client gone', async () => {
    const added = await counting();
    const data = job();
    await redis.set(ownerKey(prefix, data.jobId), 'host:1#0');
    await createFrameWriter(redis, audioStreamKey(prefix, data.jobId)).append({
      type: 'piece',
      index: 0,
      text: 'A short sentence.',
      durationSeconds: 1,
    });
    await redis.set(cancelKey(prefix, data.jobId), '1', 'EX', 60);
    expect(await processJob(data, deps('host:2', 1))).toBe('cancelled');
    expect(await inHand(added)).toBe(0);
  }, 60_000);

  it('a job lost too often is an attempt started and failed, reason lost', async () => {
    const added = await counting();
    workerMetrics.jobLost({ model: 'eleven_multilingual_v2' });
    expect(await added('synthesis_jobs_total', { outcome: 'failed' })).toBe(1);
    expect(await added('synthesis_job_failures_total', { reason: 'lost' })).toBe(1);
    expect(await inHand(added)).toBe(0);
  });
});

describe('failures by reason and takeovers', () => {
  it('an unknown output format fails with reason engine', async () => {
    const added = await counting();
    expect(await processJob(job({ outputFormat: 'nope_1' }), deps('host:1', 0))).toBe('failed');
    expect(await added('synthesis_job_failures_total', { reason: 'engine' })).toBe(1);
    expect(await inHand(added)).toBe(0);
  }, 60_000);

  it('a resumed job counts one takeover and its stall from the lost attempt’s last frame', async () => {
    // A first attempt wrote its first piece's marker and died.
    const resumed = job();
    await redis.set(ownerKey(prefix, resumed.jobId), 'host:1#0');
    const writer = createFrameWriter(redis, audioStreamKey(prefix, resumed.jobId), {
      owner: { key: ownerKey(prefix, resumed.jobId), token: 'host:1#0' },
    });
    await writer.append({ type: 'piece', index: 0, text: 'A short sentence.', durationSeconds: 1 });
    const added = await counting();
    expect(await processJob(resumed, deps('host:2', 1))).not.toBe('failed');
    expect(await added('synthesis_takeovers_total')).toBe(1);
    expect(await added('synthesis_takeover_stall_seconds_count')).toBe(1);
    expect(await inHand(added)).toBe(0);
  }, 60_000);
});
