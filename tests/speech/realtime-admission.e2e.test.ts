import { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { eventually } from '@platform/testing';
import { characterCount, historyItems } from './support/account-state';
import { startSpeechStack, workerJobCounts, type SpeechStack, type SpeechStackOptions } from './support/speech-stack';
import { connectSession } from './support/ws-session';

/**
 * Real-time admission (docs/operations.md "Real-time capacity"): a worker runs at most its
 * real-time slots (`WORKER_REALTIME_STREAMS`) at once, whatever `WORKER_CONCURRENCY` says; a job
 * beyond them waits in the queue, and past the gateway's `SPEECH_QUEUE_WAIT_MS` is refused (503
 * with Retry-After, WebSocket close 1013), charged nothing, recorded nowhere.
 *
 * The worker is paused (SIGSTOP) while the jobs are queued, so which jobs wait is decided by the
 * test and not by how fast this machine synthesises: on resume a worker with two slots would take
 * both queued jobs at once; one with one slot takes one.
 */

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const SENTENCE = 'A listener hears every second of this stream before the next one is needed. ';
/** About 600 characters, as a typical streamed paragraph. */
const TEXT = SENTENCE.repeat(8).slice(0, 600);

function stream(stack: SpeechStack, body: Record<string, unknown>, route = '/stream') {
  return fetch(`${stack.url}/v1/text-to-speech/${RACHEL}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify(body),
  });
}

async function queuedJobs(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts('waiting', 'prioritized');
  return (counts.waiting ?? 0) + (counts.prioritized ?? 0);
}

/**
 * One worker with one real-time slot (WORKER_CONCURRENCY stays at the harness's 2: the slot count
 * alone limits it) and a BullMQ handle on its queue; started before and stopped after the block's tests.
 */
function oneSlotStack(options: SpeechStackOptions = {}) {
  const handle = {} as { stack: SpeechStack; queue: Queue; connection: Redis };
  beforeAll(async () => {
    handle.stack = await startSpeechStack({
      workers: 1,
      frameTimeoutMs: 60_000,
      ...options,
      workerEnv: { WORKER_REALTIME_STREAMS: '1' },
    });
    handle.connection = handle.stack.redis.duplicate({ maxRetriesPerRequest: null });
    handle.queue = new Queue(handle.stack.queue, { connection: handle.connection });
  }, 90_000);
  afterAll(async () => {
    await handle.queue?.close();
    handle.connection?.disconnect();
    await handle.stack?.stop();
  }, 30_000);
  return handle;
}

describe('a worker with one real-time slot', () => {
  const handle = oneSlotStack();

  it('runs two concurrent streams one after the other: the second starts only once the first has ended', async () => {
    const { stack, queue } = handle;
    const worker = stack.workers[0]!;
    worker.process.kill('SIGSTOP');
    let first: Promise<Response>;
    let second: Promise<Response>;
    try {
      first = stream(stack, { text: TEXT });
      second = stream(stack, { text: TEXT.split('').reverse().join('') });
      await eventually(async () => (await queuedJobs(queue)) === 2, 20_000);
    } finally {
      worker.process.kill('SIGCONT');
    }
    const responses = await Promise.all([first, second]);
    const ids = responses.map((r) => r.headers.get('history-item-id')!);
    const bodies = await Promise.all(responses.map((r) => r.arrayBuffer()));
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(bodies.every((b) => b.byteLength > 10_000)).toBe(true);

    // The worker's own timestamps (BullMQ keeps completed jobs): taken, finished. A job is marked
    // finished just after its last frame reached the client.
    const finished = async () => Promise.all(ids.map((id) => Job.fromId(queue, id)));
    await eventually(async () => (await finished()).every((j) => j?.finishedOn !== undefined), 20_000);
    const jobs = await finished();
    const runs = jobs
      .map((j) => ({ taken: j!.processedOn!, finished: j!.finishedOn! }))
      .sort((a, b) => a.taken - b.taken);
    expect(runs[0]!.finished).toBeLessThanOrEqual(runs[1]!.taken);
    expect(await workerJobCounts(worker)).toMatchObject({ jobsStarted: 2, jobsCompleted: 2 });
  }, 90_000);
});

describe('a job no slot frees for within SPEECH_QUEUE_WAIT_MS', () => {
  const handle = oneSlotStack({ queueWaitMs: 1_000, accountSpeech: true, storeQuota: true });

  it('is refused: 503 with Retry-After in the speech error shape, WebSocket close 1013; nothing charged, nothing in history, never run', async () => {
    const { stack, queue } = handle;
    const worker = stack.workers[0]!;
    const before = await characterCount(stack);
    const historyBefore = (await historyItems(stack)).length;
    // The only slot is taken: a stream is running (its first audio is here) when the worker pauses.
    const running = await stream(stack, { text: TEXT });
    expect(running.status).toBe(200);
    const reader = running.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    worker.process.kill('SIGSTOP');
    let refusals: [Response, Response, { code: number; reason: string }, string[]];
    try {
      const ws = connectSession(`${stack.wsUrl}/v1/text-to-speech/${RACHEL}/stream-input`);
      await ws.opened;
      ws.ws.send(JSON.stringify({ text: ' ', xi_api_key: stack.apiKey }));
      ws.ws.send(JSON.stringify({ text: 'This sentence finds no free slot. ', flush: true }));
      ws.ws.send(JSON.stringify({ text: '' }));
      const [streamed, whole, closed] = await Promise.all([
        stream(stack, { text: TEXT }),
        stream(stack, { text: TEXT }, ''),
        ws.closed,
      ]);
      refusals = [streamed, whole, closed, ws.texts];
    } finally {
      worker.process.kill('SIGCONT');
    }
    const [streamed, whole, closed, texts] = refusals;
    for (const res of [streamed, whole]) {
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toEqual({ detail: { status: 'error', message: expect.stringContaining('busy') } });
    }
    expect(closed.code).toBe(1013);
    expect(closed.reason).toContain('busy');
    expect(texts.map((t) => JSON.parse(t) as unknown)).toContainEqual({
      detail: { status: 'error', message: expect.stringContaining('busy') },
    });

    // The running stream is unaffected and completes.
    while (!(await reader.read()).done);
    await eventually(async () => (await workerJobCounts(worker)).jobsCompleted === 1, 20_000);
    // Only the stream that ran is charged and recorded; the refused jobs left no job behind.
    await eventually(async () => (await historyItems(stack)).length === historyBefore + 1, 20_000);
    expect(await characterCount(stack)).toBe(before + [...TEXT].length);
    expect((await historyItems(stack))[0]).toMatchObject({ state: 'complete', text: TEXT });
    const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'completed', 'failed');
    expect(counts).toMatchObject({ waiting: 0, prioritized: 0, active: 0, completed: 1, failed: 0 });
    expect((await workerJobCounts(worker)).jobsStarted).toBe(1);
  }, 90_000);
});
