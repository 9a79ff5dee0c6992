import { metricsRegistry } from '@platform/metrics';
import { DEFAULT_MODEL_ID, NEURAL_MODEL_ID } from '@platform/speech-engine';
import { FAILURE_REASONS, workerMetrics } from '../src/synthesis/metrics';

/** The samples of one metric as `labels → value` (the worker's metrics are the process registry's, one per test file). */
async function samples(name: string): Promise<Map<string, number>> {
  const metric = (await metricsRegistry.getMetricsAsJSON()).find((m) => m.name === name);
  return new Map((metric?.values ?? []).map((v) => [JSON.stringify(v.labels), v.value]));
}

describe('worker metrics at boot', () => {
  it('exports the takeovers, their stall and the failures the alert rules and dashboard read at 0 for every model and reason, before any job', async () => {
    const takeovers = await samples('synthesis_takeovers_total');
    const failures = await samples('synthesis_job_failures_total');
    for (const model of [DEFAULT_MODEL_ID, NEURAL_MODEL_ID]) {
      expect(takeovers.get(JSON.stringify({ model }))).toBe(0);
      for (const reason of FAILURE_REASONS) expect(failures.get(JSON.stringify({ model, reason }))).toBe(0);
    }
    expect(failures.size).toBe(2 * FAILURE_REASONS.length);
    const stall = await samples('synthesis_takeover_stall_seconds');
    expect(stall.size).toBeGreaterThan(0);
    expect([...stall.values()].every((v) => v === 0)).toBe(true);
  });

  it('counts on top of the zeros', async () => {
    workerMetrics.takeover({ model: DEFAULT_MODEL_ID });
    workerMetrics.jobLost({ model: DEFAULT_MODEL_ID });
    expect((await samples('synthesis_takeovers_total')).get(JSON.stringify({ model: DEFAULT_MODEL_ID }))).toBe(1);
    expect(
      (await samples('synthesis_job_failures_total')).get(JSON.stringify({ model: DEFAULT_MODEL_ID, reason: 'lost' })),
    ).toBe(1);
  });
});
