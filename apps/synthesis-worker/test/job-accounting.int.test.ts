import type { Redis } from 'ioredis';
import { createLogger } from '@platform/logger';
import { Registry } from '@platform/metrics';
import { cancelKey, createFrameWriter, audioStreamKey, ownerKey, type SynthesisJobData } from '@platform/speech-jobs';
import { connectRedis } from '@platform/stores';
import { stackEnv, uniqueName } from '@platform/testing';
import { createMetrics } from '../src/synthesis/metrics';
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

/** One set of the worker's metrics per registry, as the worker has one per process. */
const metricsOf = new Map<Registry, ReturnType<typeof createMetrics>>();
function deps(registry: Registry, worker: string, takeovers: number): ProcessDeps {
  if (!metricsOf.has(registry)) metricsOf.set(registry, createMetrics(registry));
  return {
    redis,
    logger: createLogger('job-accounting-test', 'silent'),
    metrics: metricsOf.get(registry)!,
    queue: 'synthesis',
    enqueuedAt: Date.now(),
    attempt: { worker, takeovers },
  };
}

/** The sum of a metric's samples named `sample` (all label sets, or those matching `labels`). */
async function total(registry: Registry, sample: string, labels: Record<string, string> = {}): Promise<number> {
  const metrics = await registry.getMetricsAsJSON();
  const values = metrics.flatMap((m) =>
    (m.values as { metricName?: string; value: number; labels: Record<string, string | number> }[]).map((v) => ({
      ...v,
      name: v.metricName ?? m.name,
    })),
  );
  return values
    .filter((v) => v.name === sample)
    .filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
    .reduce((n, v) => n + v.value, 0);
}

async function inHand(registry: Registry): Promise<number> {
  return (await total(registry, 'synthesis_jobs_started_total')) - (await total(registry, 'synthesis_jobs_total'));
}

describe('jobs in hand (started minus ended)', () => {
  it('stay at zero after a duplicate and an expired job: neither is an end without a start', async () => {
    const registry = new Registry();
    const data = job();
    expect(await processJob(data, deps(registry, 'host:1', 0))).toBe('complete');
    // Handed out again after it ended: a duplicate.
    expect(await processJob(data, deps(registry, 'host:2', 1))).toBe('duplicate');
    // Taken after the gateway gave up on it: expired.
    expect(await processJob(job({ deadlineAt: Date.now() - 1 }), deps(registry, 'host:1', 0))).toBe('expired');
    expect(await total(registry, 'synthesis_jobs_total', { outcome: 'duplicate' })).toBe(1);
    expect(await total(registry, 'synthesis_jobs_total', { outcome: 'expired' })).toBe(1);
    expect(await inHand(registry)).toBe(0);
  }, 60_000);

  it('stay at zero after a takeover that finds its client gone', async () => {
    const registry = new Registry();
    const data = job();
    await redis.set(ownerKey(prefix, data.jobId), 'host:1#0');
    await createFrameWriter(redis, audioStreamKey(prefix, data.jobId)).append({
      type: 'piece',
      index: 0,
      text: 'A short sentence.',
      durationSeconds: 1,
    });
    await redis.set(cancelKey(prefix, data.jobId), '1', 'EX', 60);
    expect(await processJob(data, deps(registry, 'host:2', 1))).toBe('cancelled');
    expect(await inHand(registry)).toBe(0);
  }, 60_000);

  it('a job lost too often is an attempt started and failed, reason lost', async () => {
    const registry = new Registry();
    createMetrics(registry).jobLost({ model: 'eleven_multilingual_v2' });
    expect(await total(registry, 'synthesis_jobs_total', { outcome: 'failed' })).toBe(1);
    expect(await total(registry, 'synthesis_job_failures_total', { reason: 'lost' })).toBe(1);
    expect(await inHand(registry)).toBe(0);
  });
});

describe('failures by reason and takeovers', () => {
  it('an unknown output format fails with reason engine', async () => {
    const registry = new Registry();
    expect(await processJob(job({ outputFormat: 'nope_1' }), deps(registry, 'host:1', 0))).toBe('failed');
    expect(await total(registry, 'synthesis_job_failures_total', { reason: 'engine' })).toBe(1);
    expect(await inHand(registry)).toBe(0);
  }, 60_000);

  it('a resumed job counts one takeover and its stall from the lost attempt’s last frame', async () => {
    // A first attempt wrote its first piece's marker and died.
    const resumed = job();
    await redis.set(ownerKey(prefix, resumed.jobId), 'host:1#0');
    const writer = createFrameWriter(redis, audioStreamKey(prefix, resumed.jobId), {
      owner: { key: ownerKey(prefix, resumed.jobId), token: 'host:1#0' },
    });
    await writer.append({ type: 'piece', index: 0, text: 'A short sentence.', durationSeconds: 1 });
    const second = new Registry();
    expect(await processJob(resumed, deps(second, 'host:2', 1))).not.toBe('failed');
    expect(await total(second, 'synthesis_takeovers_total')).toBe(1);
    expect(await total(second, 'synthesis_takeover_stall_seconds_count')).toBe(1);
    expect(await inHand(second)).toBe(0);
  }, 60_000);
});
