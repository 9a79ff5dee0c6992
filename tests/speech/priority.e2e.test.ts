import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { startSpeechStack, workerJobCounts, type SpeechStack } from './support/speech-stack';

/**
 * Plan priority end to end: one worker process with concurrency 1 is busy with a long job; a free
 * account's job is queued, then a pro account's; when the worker is free again it takes the pro job
 * first. The order is read from the worker's own log ("synthesis job started", one line per job
 * taken), and each step waits (polling with a deadline) for the previous one to be visible in
 * Redis, so the test does not race the pipeline.
 */

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const SENTENCE = 'This long text keeps the only worker busy while the other jobs wait in the queue. ';
// The maximum text length, read slowly: several seconds of synthesis on this machine.
const BUSY_TEXT = SENTENCE.repeat(Math.ceil(5000 / SENTENCE.length)).slice(0, 5000);

let stack: SpeechStack;
let queue: Queue;
let queueConnection: Redis;

beforeAll(async () => {
  stack = await startSpeechStack({ workers: 1, concurrency: 1 });
  queueConnection = stack.redis.duplicate({ maxRetriesPerRequest: null });
  queue = new Queue(stack.queue, { connection: queueConnection });
}, 90_000);

afterAll(async () => {
  await queue?.close();
  // BullMQ does not close a connection it was given.
  queueConnection?.disconnect();
  await stack?.stop();
}, 30_000);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function metrics(): Promise<{ jobsStarted: number; jobsCompleted: number }> {
  return workerJobCounts(stack.workers[0]!);
}

function synthesise(apiKey: string, text: string, extra: Record<string, unknown> = {}) {
  return fetch(`${stack.url}/v1/text-to-speech/${RACHEL}?output_format=pcm_22050`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': apiKey },
    body: JSON.stringify({ text, ...extra }),
  }).then(async (res) => ({
    status: res.status,
    jobId: res.headers.get('history-item-id'),
    bytes: (await res.arrayBuffer()).byteLength,
  }));
}

/** Jobs queued and not yet taken (BullMQ keeps jobs with a priority in its `prioritized` set). */
async function queued(): Promise<number> {
  const counts = await queue.getJobCounts('waiting', 'prioritized');
  return (counts.waiting ?? 0) + (counts.prioritized ?? 0);
}

function startedJobs(): { jobId: string; accountId: string }[] {
  return stack.workers[0]!.output()
    .split('\n')
    .filter((line) => line.includes('"synthesis job started"'))
    .map((line) => JSON.parse(line) as { jobId: string; accountId: string });
}

it('a pro job queued after a free job starts first once the busy worker frees up', async () => {
  const busy = synthesise(stack.apiKey, BUSY_TEXT, { voice_settings: { speed: 0.7 } });
  await until('the worker to take the busy job', async () => ((await metrics()).jobsStarted === 1 ? true : undefined));

  const free = synthesise(stack.planKeys.free, 'Free plan, queued first.');
  await until('the free job in the queue', async () => ((await queued()) === 1 ? true : undefined));
  const pro = synthesise(stack.planKeys.pro, 'Pro plan, queued second.');
  await until('the pro job in the queue', async () => ((await queued()) === 2 ? true : undefined));

  // Precondition of the scenario: both jobs were queued while the only slot was still taken.
  expect(await metrics()).toMatchObject({ jobsStarted: 1, jobsCompleted: 0 });

  const [busyRes, freeRes, proRes] = await Promise.all([busy, free, pro]);
  for (const res of [busyRes, freeRes, proRes]) {
    expect(res.status).toBe(200);
    expect(res.bytes).toBeGreaterThan(0);
  }
  const started = await until('three start lines in the worker log', async () => {
    const lines = startedJobs();
    return lines.length === 3 ? lines : undefined;
  });
  expect(started.map((s) => s.accountId)).toEqual(['acct_test', 'acct_pro', 'acct_free']);
  expect(started.map((s) => s.jobId)).toEqual([busyRes.jobId, proRes.jobId, freeRes.jobId]);
}, 60_000);
