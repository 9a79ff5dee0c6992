import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
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
          this.set(
            { queue, priority: String(priority), state: priority === 0 ? 'waiting' : 'prioritized' },
            byPriority[priority] ?? 0,
          );
        }
        for (const state of STATES) this.set({ queue, priority: 'any', state }, byState[state] ?? 0);
      }
    },
  });
}

/** Jobs read from each end a waiting job may be at: new jobs queue behind the ones handed back, which stand first. */
const OLDEST_SCAN = 20;
/** BullMQ's prioritized score: `priority * 2^32 + counter` (`getPriorityScore.lua`), so each priority is one score range, oldest first. */
const PRIORITY_SPAN = 0x100000000;

/**
 * Seconds the oldest job waiting to start has waited (0: none waits), from the jobs at the front of
 * the `wait` list and of each priority in the `prioritized` set (at most `OLDEST_SCAN` of each, so
 * a scrape costs a bounded read). Jobs handed back by a worker (a takeover, a drain: they have
 * started once) are left out: they are not waiting for admission, and their stall has its own
 * metric (`synthesis_takeover_stall_seconds`).
 */
async function oldestWaitSeconds(client: Redis, queue: Queue, priorities: number[], now: number): Promise<number> {
  const waiting = await client.lrange(queue.keys.wait!, -OLDEST_SCAN, -1);
  const prioritized = await Promise.all(
    priorities
      .filter((p) => p > 0)
      .map((p) =>
        client.zrangebyscore(
          queue.keys.prioritized!,
          p * PRIORITY_SPAN,
          (p + 1) * PRIORITY_SPAN - 1,
          'LIMIT',
          0,
          OLDEST_SCAN,
        ),
      ),
  );
  const ids = [...waiting, ...prioritized.flat()];
  if (ids.length === 0) return 0;
  const pipeline = client.pipeline();
  for (const id of ids) pipeline.hmget(queue.toKey(id), 'timestamp', 'processedOn');
  const rows = (await pipeline.exec()) ?? [];
  let oldest = now;
  for (const [err, fields] of rows) {
    const [timestamp, processedOn] = (err ? [] : fields) as (string | null)[];
    if (!timestamp || processedOn) continue;
    oldest = Math.min(oldest, Number(timestamp));
  }
  return Math.max(0, now - oldest) / 1000;
}

/** `synthesis_queue_oldest_wait_seconds{queue}`: `oldestWaitSeconds` on each scrape (on `redis`, the queues' Redis); left out when Redis does not answer. */
export function watchOldestWait(redis: Redis, queues: Queue[], priorities: number[], logger: Logger): void {
  new Gauge({
    name: 'synthesis_queue_oldest_wait_seconds',
    help: 'Seconds the oldest job waiting for a worker to start it has waited (0 when none waits); jobs handed back by a worker are left out',
    labelNames: ['queue'],
    registers: [metricsRegistry],
    async collect() {
      const read = await Promise.allSettled(
        queues.map(async (queue) => ({
          queue: queue.name,
          seconds: await withTimeout(
            oldestWaitSeconds(redis, queue, priorities, Date.now()),
            READ_TIMEOUT_MS,
            'oldest waiting job',
          ),
        })),
      );
      this.reset();
      for (const result of read) {
        if (result.status === 'rejected')
          logger.warn({ err: String(result.reason) }, 'synthesis queue oldest wait unavailable for metrics');
        else this.set({ queue: result.value.queue }, result.value.seconds);
      }
    },
  });
}
