import { Queue, QueueEvents, Worker } from 'bullmq';
import { stackEnv, uniqueName } from '@platform/testing';

function connection() {
  const url = new URL(stackEnv().REDIS_URL);
  return { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null };
}

describe('BullMQ on the local Redis', () => {
  it('processes an enqueued job in a Worker and returns its result', async () => {
    const name = uniqueName('it-queue');
    const queue = new Queue(name, { connection: connection() });
    const events = new QueueEvents(name, { connection: connection() });
    const seen: string[] = [];
    const worker = new Worker(
      name,
      async (job) => {
        seen.push(job.name);
        return { doubled: (job.data as { n: number }).n * 2 };
      },
      { connection: connection() },
    );
    try {
      await events.waitUntilReady();
      const job = await queue.add('double', { n: 21 });
      const result: unknown = await job.waitUntilFinished(events, 15_000);
      expect(result).toEqual({ doubled: 42 });
      expect(seen).toEqual(['double']);
      const state = await queue.getJobState(job.id!);
      expect(state).toBe('completed');
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
