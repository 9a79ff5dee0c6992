import path from 'node:path';
import { eventually, scrapeMetrics, sumOf } from '@platform/testing';
import { characterCount, recordedHistory } from './support/account-state';
import { followStream } from './support/job-streams';
import { startSpeechStack, type SpeechStack, type SpeechWorker } from './support/speech-stack';

/**
 * Liveness that load cannot fake, and takeovers that need no free slot (docs/operations.md "A
 * worker dies mid-job", docs/decisions.md): a worker whose main loop is blocked keeps its job (its
 * lock heartbeat runs on a thread of its own), and a killed worker's stream is resumed at once by a
 * worker whose regular slots are all busy (the takeover slot).
 */

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const sentences = (label: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${label} sentence ${i + 1} keeps the worker busy for a while.`).join(' ');
const SUPPORT = path.join(__dirname, 'support');

/** A `/stream` request read to its end in the background; its response's job id and bytes. */
async function startStream(stack: SpeechStack, text: string) {
  const res = await fetch(`${stack.url}/v1/text-to-speech/${RACHEL}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify({ text, output_format: 'mp3_44100_128' }),
  });
  expect(res.status).toBe(200);
  const jobId = res.headers.get('history-item-id')!;
  const chunks: Buffer[] = [];
  const done = (async () => {
    const reader = res.body!.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(Buffer.from(r.value));
    return Buffer.concat(chunks);
  })();
  return { jobId, done, stream: followStream(stack.redis, `${stack.prefix}:job:${jobId}:audio`) };
}

/** The whole-file audio of `text` (an uninterrupted generation: the reference). */
async function reference(stack: SpeechStack, text: string): Promise<Buffer> {
  const res = await fetch(`${stack.url}/v1/text-to-speech/${RACHEL}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify({ text, output_format: 'mp3_44100_128' }),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** The worker of this stack that wrote `frame` (its writer is `host:pid`). */
function writerOf(stack: SpeechStack, writer: string): SpeechWorker {
  const worker = stack.workers.find((w) => writer.endsWith(`:${w.process.pid}`));
  if (!worker) throw new Error(`no worker of this stack is ${writer}`);
  return worker;
}

async function takeovers(workers: SpeechWorker[]): Promise<number> {
  let n = 0;
  for (const w of workers) n += sumOf(await scrapeMetrics(w.metricsUrl), 'synthesis_takeovers_total');
  return n;
}

describe('a worker whose main loop is blocked for three lock periods', () => {
  let stack: SpeechStack;
  beforeAll(async () => {
    stack = await startSpeechStack({
      workers: 2,
      concurrency: 1,
      lockMs: 1000,
      workerEnv: {
        SYNTHESIS_STALLED_INTERVAL_MS: '500',
        NODE_OPTIONS: `--require ${path.join(SUPPORT, 'block-main-loop.cjs')}`,
        BLOCK_MAIN_LOOP_MS: '3000',
      },
      accountSpeech: true,
      storeQuota: true,
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('keeps its job: no takeover, one writer, the audio of an uninterrupted run', async () => {
    const text = sentences('Blocked', 60);
    const expected = await reference(stack, text);
    const { done, stream } = await startStream(stack, text);
    await eventually(() => stream.frames.some((f) => f.frame.type === 'piece'), 60_000, 5);
    const holder = writerOf(stack, stream.frames[0]!.writer);
    const blockedAt = Date.now();
    holder.process.kill('SIGUSR2');
    const audio = await done;
    await stream.stop();
    // The main loop was blocked (3 lock periods) while the job was still running.
    expect(stream.frames.at(-1)!.atMs).toBeGreaterThan(blockedAt + 2000);
    expect(new Set(stream.frames.map((f) => f.writer))).toEqual(new Set([stream.frames[0]!.writer]));
    // `done` resolved, so the response ended cleanly: on the end frame (an error frame cuts it). The
    // follower may miss that last frame: the gateway deletes the stream once it has relayed it.
    expect(stream.frames.filter((f) => f.frame.type === 'error')).toEqual([]);
    expect(audio.equals(expected)).toBe(true);
    expect(await takeovers(stack.workers)).toBe(0);
  }, 180_000);
});

describe('a worker killed mid-stream while every worker is busy', () => {
  let stack: SpeechStack;
  beforeAll(async () => {
    // eSpeak slowed down for the texts that ask for it, so the survivor stays busy for as long as the test needs.
    stack = await startSpeechStack({
      workers: 2,
      concurrency: 1,
      lockMs: 1000,
      workerEnv: {
        SYNTHESIS_STALLED_INTERVAL_MS: '500',
        SYNTHESIS_MAX_RESUMES: '2',
        ESPEAK_BINARY: path.join(SUPPORT, 'slow-espeak.sh'),
      },
      accountSpeech: true,
      storeQuota: true,
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('is resumed at once in the takeover slot: byte-identical, charged once, before the busy job ends', async () => {
    const text = sentences('Resumed', 60);
    const expected = await reference(stack, text);
    const before = await characterCount(stack);
    // The victim first, then a slow job that keeps the other worker's only regular slot busy.
    const victim = await startStream(stack, text);
    await eventually(() => victim.stream.frames.some((f) => f.frame.type === 'piece'), 60_000, 5);
    const busyText = sentences('Take your time', 70);
    const busy = await startStream(stack, busyText);
    await eventually(() => busy.stream.frames.some((f) => f.frame.type === 'piece'), 60_000, 5);
    const deadWriter = victim.stream.frames[0]!.writer;
    expect(busy.stream.frames[0]!.writer).not.toBe(deadWriter);
    const killed = writerOf(stack, deadWriter);
    killed.process.kill('SIGKILL');
    await killed.exited;

    const audio = await victim.done;
    await victim.stream.stop();
    const frames = victim.stream.frames;
    const taken = frames.filter((f) => f.writer !== deadWriter);
    expect(taken.length).toBeGreaterThan(0);
    expect(frames.map((f) => f.frame.seq)).toEqual(frames.map((_, i) => i));
    expect(audio.equals(expected)).toBe(true);
    // The survivor resumed it while its regular slot still ran the slow job.
    expect(busy.stream.frames.some((f) => f.frame.type === 'end')).toBe(false);
    console.log(
      `takeover with every slot busy: last frame of the dead worker → first of the new one ${taken[0]!.atMs - frames.filter((f) => f.writer === deadWriter).at(-1)!.atMs} ms`,
    );

    // Charged once, one complete history item; the takeover and its stall are counted.
    const busyDone = await busy.done;
    await busy.stream.stop();
    expect(busyDone.length).toBeGreaterThan(0);
    expect(await characterCount(stack)).toBe(before + [...text].length + [...busyText].length);
    const items = await recordedHistory(stack, (h) => h.history_item_id === victim.jobId);
    expect(items).toEqual([
      expect.objectContaining({ state: 'complete', character_count_change_to: [...text].length }),
    ]);
    const survivor = stack.workers.find((w) => w !== killed)!;
    const samples = await scrapeMetrics(survivor.metricsUrl);
    expect(sumOf(samples, 'synthesis_takeovers_total')).toBe(1);
    expect(sumOf(samples, 'synthesis_takeover_stall_seconds_count')).toBe(1);
  }, 240_000);
});

describe('a draining worker hands its stream over while every other worker is busy', () => {
  let stack: SpeechStack;
  beforeAll(async () => {
    // A 1 ms drain bound: the job in hand is handed over at the first piece boundary after SIGTERM.
    stack = await startSpeechStack({
      workers: 2,
      concurrency: 1,
      lockMs: 1000,
      workerEnv: { WORKER_DRAIN_MS: '1', ESPEAK_BINARY: path.join(SUPPORT, 'slow-espeak.sh') },
      accountSpeech: true,
      storeQuota: true,
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('is continued at once in the takeover slot: byte-identical, charged once, before the busy job ends', async () => {
    const text = sentences('Handed', 60);
    const expected = await reference(stack, text);
    const before = await characterCount(stack);
    const handed = await startStream(stack, text);
    await eventually(() => handed.stream.frames.some((f) => f.frame.type === 'piece'), 60_000, 5);
    const busyText = sentences('Take your time', 70);
    const busy = await startStream(stack, busyText);
    await eventually(() => busy.stream.frames.some((f) => f.frame.type === 'piece'), 60_000, 5);
    const drainingName = handed.stream.frames[0]!.writer;
    expect(busy.stream.frames[0]!.writer).not.toBe(drainingName);
    const draining = writerOf(stack, drainingName);
    draining.process.kill('SIGTERM');
    expect(await draining.exited).toBe(0);

    // Continued by the busy worker's takeover slot while its regular slot still runs the slow job.
    await eventually(() => handed.stream.frames.some((f) => f.writer !== drainingName), 60_000, 5);
    expect(busy.stream.frames.some((f) => f.frame.type === 'end')).toBe(false);
    const audio = await handed.done;
    await handed.stream.stop();
    const frames = handed.stream.frames;
    expect(frames.map((f) => f.frame.seq)).toEqual(frames.map((_, i) => i));
    expect(audio.equals(expected)).toBe(true);

    await busy.done;
    await busy.stream.stop();
    expect(await characterCount(stack)).toBe(before + [...text].length + [...busyText].length);
    const items = await recordedHistory(stack, (h) => h.history_item_id === handed.jobId);
    expect(items).toEqual([
      expect.objectContaining({ state: 'complete', character_count_change_to: [...text].length }),
    ]);
  }, 240_000);
});
