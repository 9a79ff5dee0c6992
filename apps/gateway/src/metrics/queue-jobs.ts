import type { Queue } from 'bullmq';
import type { Logger } from '@platform/logger';
import { Gauge, metricsRegistry } from '@platform/metrics';
import { withTimeout } from '@platform/service';
import { READ_TIMEOUT_MS } from './gateway-metrics';

/** States counted as a whole; waiting and prioritized jobs are counted per priority. */
const STATES = ['active', 'delayed', 'failed'] as const;

/**
 * `synthesis_queue_jobs{queue,priority,state}`, read from BullMQ on each scrape: jobs waiting
 * (priority 0) or prioritized, per BullMQ priority (1 is served first; the gateway gives each plan
 * one, `planPriority`), and active, delayed and failed jobs with `priority="any"`. Every replica
 * reads the same queue, so dashboards aggregate with max, not sum.
 */
export function watchQueueJobs(queues: Queue[], priorities: number[], logger: Logger): void {
  const levels = [...new Set([0, ...priorities])].sort((a, b) => a - b);
  new Gauge({
    name: 'synthesis_queue_jobs',
    help: 'Jobs in the synthesis queue by state (waiting, prioritized, active, delayed, failed) and priority',
    labelNames: ['queue', 'priority', 'state'],
    registers: [metricsRegistry],
    async collect() {
      const read = await Promise.allSettled(
        queues.map(async (queue) => ({
          queue: queue.name,
          byPriority: await withTimeout(queue.getCountsPerPriority(levels), READ_TIMEOUT_MS, 'queue counts'),
          byState: await withTimeout(queue.getJobCounts(...STATES), READ_TIMEOUT_MS, 'queue counts'),
        })),
      );
      this.reset();
      for (const result of read) {
        if (result.status === 'rejected') {
          logger.warn({ err: String(result.reason) }, 'synthesis queue counts unavailable for metrics');
          continue;
        }
        const { queue, byPriority, byState } = result.value;
        for (const priority of levels) {
          this.set({ queue, priority: String(priority), state: priority === 0 ? 'waiting' : 'prioritized' }, byPriority[priority] ?? 0);
        }
        for (const state of STATES) this.set({ queue, priority: 'any', state }, byState[state] ?? 0);
      }
    },
  });
}
