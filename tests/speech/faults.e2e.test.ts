import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '@platform/testing';
import { mp3DurationSeconds, parseMp3 } from './support/audio';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const LONG = Array.from({ length: 40 }, (_, i) => `Sentence ${i + 1} of a long text keeps the worker busy for a while.`).join(' ');

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

function tts(stack: SpeechStack, voice: string, body: unknown, stream = false) {
  return fetch(`${stack.url}/v1/text-to-speech/${voice}${stream ? '/stream' : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify(body),
  });
}

describe('a worker killed mid-stream', () => {
  let stack: SpeechStack;
  beforeAll(async () => {
    stack = await startSpeechStack({ workers: 1, concurrency: 1, frameTimeoutMs: 3000, lockMs: 2000 });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('the client gets an incomplete response within the frame timeout, and nothing is left in Redis', async () => {
    const res = await tts(stack, RACHEL, { text: LONG, output_format: 'mp3_44100_192' }, true);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read(); // the first audio is here: the worker is mid-job
    stack.workers[0]!.process.kill('SIGKILL');
    const started = Date.now();
    // Reading on must fail (the response is cut off), not end as if the audio were complete.
    await expect(
      (async () => {
        for (;;) {
          const { done } = await reader.read();
          if (done) return 'completed';
        }
      })(),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(8000);

    // A new worker picks the queue up; the dead worker's job is failed and removed, the stream is gone.
    await stack.startWorker();
    await until(async () => {
      const [streams, active, wait] = await Promise.all([
        stack.redis.keys(`${stack.prefix}:job:*:audio`),
        stack.redis.llen(`bull:${stack.queue}:active`),
        stack.redis.llen(`bull:${stack.queue}:wait`),
      ]);
      const jobs = (await stack.redis.keys(`bull:${stack.queue}:*`)).filter((k) => /:[A-Za-z0-9]{20}$/.test(k));
      return streams.length === 0 && active === 0 && wait === 0 && jobs.length === 0;
    }, 20_000);
    // Cancel flags expire on their own.
    for (const key of await stack.redis.keys(`${stack.prefix}:job:*`)) expect(await stack.redis.ttl(key)).toBeGreaterThan(0);

    // And the next request is served in full.
    const next = await tts(stack, RACHEL, { text: 'Back to normal.' });
    expect(next.status).toBe(200);
    expect(mp3DurationSeconds(parseMp3(Buffer.from(await next.arrayBuffer())))).toBeGreaterThan(0.5);
  }, 60_000);

  it('a whole-file request whose worker dies gets a 503 in the speech shape', async () => {
    const worker = stack.workers.at(-1)!;
    const pending = tts(stack, RACHEL, { text: `${LONG} ${LONG}`, output_format: 'pcm_44100' });
    await until(async () => ((await (await fetch(`${worker.url}/metrics`)).json()) as { jobsStarted: number }).jobsStarted > 1, 10_000);
    worker.process.kill('SIGKILL');
    const res = await pending;
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ detail: { status: 'error' } });
    await stack.startWorker();
  }, 60_000);
});

describe('several workers, cancellation and draining', () => {
  let stack: SpeechStack;
  const metrics = async (url: string) =>
    (await (await fetch(`${url}/metrics`)).json()) as { jobsStarted: number; jobsCompleted: number; jobsCancelled: number };
  beforeAll(async () => {
    stack = await startSpeechStack({ workers: 2, concurrency: 1 });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('two worker processes share the queue', async () => {
    const texts = Array.from({ length: 6 }, (_, i) => `Request ${i + 1} of several, spoken in parallel. ${LONG.slice(0, 400)}`);
    const results = await Promise.all(texts.map(async (text) => (await tts(stack, RACHEL, { text, output_format: 'pcm_8000' })).status));
    expect(results.every((s) => s === 200)).toBe(true);
    const counts = await Promise.all(stack.workers.map((w) => metrics(w.url)));
    for (const c of counts) expect(c.jobsCompleted).toBeGreaterThan(0);
  }, 60_000);

  it('an HTTP client that disconnects mid-stream cancels its job', async () => {
    const before = (await Promise.all(stack.workers.map((w) => metrics(w.url)))).reduce((n, m) => n + m.jobsCancelled, 0);
    const controller = new AbortController();
    const res = await fetch(`${stack.url}/v1/text-to-speech/${RACHEL}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
      body: JSON.stringify({ text: `${LONG} ${LONG}`, output_format: 'mp3_44100_192' }),
      signal: controller.signal,
    });
    await res.body!.getReader().read();
    controller.abort();
    await until(async () => (await Promise.all(stack.workers.map((w) => metrics(w.url)))).reduce((n, m) => n + m.jobsCancelled, 0) > before, 10_000);
    await until(async () => (await stack.redis.keys(`${stack.prefix}:job:*:audio`)).length === 0, 10_000);
  }, 30_000);

  it('SIGTERM drains: the job in hand finishes, the worker exits 0, the other takes new work', async () => {
    const pending = tts(stack, RACHEL, { text: `${LONG} ${LONG}`, output_format: 'pcm_22050' });
    let busy: (typeof stack.workers)[number] | undefined;
    const started = await Promise.all(stack.workers.map((w) => metrics(w.url)));
    await until(async () => {
      const now = await Promise.all(stack.workers.map((w) => metrics(w.url)));
      const index = now.findIndex((m, i) => m.jobsStarted > started[i]!.jobsStarted);
      busy = index >= 0 ? stack.workers[index] : undefined;
      return busy !== undefined;
    }, 10_000);
    const exit = busy!.stop('SIGTERM');
    const res = await pending;
    expect(res.status).toBe(200);
    // The whole text was spoken: about a minute of audio, not a truncated file.
    expect((await res.arrayBuffer()).byteLength / 2 / 22050).toBeGreaterThan(30);
    expect(await exit).toBe(0);
    const after = await tts(stack, RACHEL, { text: 'Still here.' });
    expect(after.status).toBe(200);
    await after.arrayBuffer();
  }, 60_000);
});

describe('Redis restarted between requests', () => {
  let redis: ChildProcess;
  let port: number;
  let dir: string;
  let stack: SpeechStack;

  async function startRedis(): Promise<void> {
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    await until(async () => {
      const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        probe.disconnect();
      }
    }, 10_000);
  }

  beforeAll(async () => {
    port = await freePort();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'speech-redis-'));
    await startRedis();
    stack = await startSpeechStack({ workers: 1, redisUrl: `redis://127.0.0.1:${port}` });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    redis?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('the next request after the restart succeeds', async () => {
    const before = await tts(stack, RACHEL, { text: 'Before the restart.' });
    expect(before.status).toBe(200);
    await before.arrayBuffer();

    const exited = new Promise((r) => redis.once('exit', r));
    redis.kill('SIGKILL');
    await exited;
    await startRedis();

    const after = await tts(stack, RACHEL, { text: 'After the restart.' });
    expect(after.status).toBe(200);
    expect(mp3DurationSeconds(parseMp3(Buffer.from(await after.arrayBuffer())))).toBeGreaterThan(0.5);
  }, 60_000);
});
