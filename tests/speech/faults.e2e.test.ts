import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { peekSubscription, reserveCharacters, type SpeechStore } from '@platform/speech-store';
import { freePort, stackEnv } from '@platform/testing';
import { mp3DurationSeconds, parseMp3 } from './support/audio';
import { characterCount, historyItems } from './support/account-state';
import { startSpeechStack, workerJobCounts, type SpeechStack } from './support/speech-stack';

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const LONG = Array.from(
  { length: 40 },
  (_, i) => `Sentence ${i + 1} of a long text keeps the worker busy for a while.`,
).join(' ');

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

// The only worker killed mid-job: no worker is left to resume it (tests/speech/worker-crash-resume
// covers the resume), so the client gets the documented failure after the frame timeout.
describe('a worker killed mid-stream', () => {
  let stack: SpeechStack;
  beforeAll(async () => {
    stack = await startSpeechStack({
      workers: 1,
      concurrency: 1,
      frameTimeoutMs: 3000,
      lockMs: 2000,
      accountSpeech: true,
      storeQuota: true,
    });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('the client gets an incomplete response within the frame timeout, nothing is charged, the gateway records it as failed, and nothing is left in Redis', async () => {
    const before = await characterCount(stack);
    const res = await tts(stack, RACHEL, { text: LONG, output_format: 'mp3_44100_192' }, true);
    expect(res.status).toBe(200);
    const jobId = res.headers.get('history-item-id')!;
    // While it runs, its characters are reserved.
    expect(await characterCount(stack)).toBe(before + [...LONG].length);
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

    // A new worker picks the queue up; the dead worker's job was removed by the gateway when it gave
    // up (its lock had lapsed), so nothing resumes it; the stream is gone.
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
    for (const key of await stack.redis.keys(`${stack.prefix}:job:*`))
      expect(await stack.redis.ttl(key)).toBeGreaterThan(0);

    // The gateway gave up and settled at 0: the reservation is back. The dead worker never wrote a
    // history item; the gateway recorded the generation once, as failed, charged nothing, without
    // audio (docs/speech.md, History), before it cut the response off.
    expect(await characterCount(stack)).toBe(before);
    const item = await fetch(`${stack.url}/v1/history/${jobId}`, { headers: { 'xi-api-key': stack.apiKey } });
    expect(item.status).toBe(200);
    expect(await item.json()).toMatchObject({
      history_item_id: jobId,
      text: LONG,
      state: 'failed',
      character_count_from_request: [...LONG].length,
      character_count_change_to: 0,
    });
    expect((await historyItems(stack)).filter((h) => h.text === LONG)).toHaveLength(1);
    expect(
      (await fetch(`${stack.url}/v1/history/${jobId}/audio`, { headers: { 'xi-api-key': stack.apiKey } })).status,
    ).toBe(404);

    // And the next request is served in full.
    const next = await tts(stack, RACHEL, { text: 'Back to normal.' });
    expect(next.status).toBe(200);
    expect(mp3DurationSeconds(parseMp3(Buffer.from(await next.arrayBuffer())))).toBeGreaterThan(0.5);
  }, 60_000);

  it('a whole-file request whose worker dies gets a 503 in the speech shape and a failed history item', async () => {
    const worker = stack.workers.at(-1)!;
    const before = await characterCount(stack);
    const text = `${LONG} ${LONG}`;
    const pending = tts(stack, RACHEL, { text, output_format: 'pcm_44100' });
    await until(async () => (await workerJobCounts(worker)).jobsStarted > 1, 10_000);
    worker.process.kill('SIGKILL');
    const res = await pending;
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ detail: { status: 'error' } });
    // Not charged; recorded once as failed (before the 503 was sent), without audio.
    expect(await characterCount(stack)).toBe(before);
    const items = (await historyItems(stack)).filter((h) => h.text === text);
    expect(items).toEqual([
      expect.objectContaining({
        state: 'failed',
        character_count_from_request: [...text].length,
        character_count_change_to: 0,
      }),
    ]);
    expect(
      (
        await fetch(`${stack.url}/v1/history/${items[0]!.history_item_id}/audio`, {
          headers: { 'xi-api-key': stack.apiKey },
        })
      ).status,
    ).toBe(404);
    await stack.startWorker();
  }, 60_000);
});

describe('several workers, cancellation and draining', () => {
  let stack: SpeechStack;
  const metrics = workerJobCounts;
  beforeAll(async () => {
    stack = await startSpeechStack({ workers: 2, concurrency: 1, accountSpeech: true, storeQuota: true });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('two worker processes share the queue', async () => {
    const texts = Array.from(
      { length: 6 },
      (_, i) => `Request ${i + 1} of several, spoken in parallel. ${LONG.slice(0, 400)}`,
    );
    const results = await Promise.all(
      texts.map(async (text) => (await tts(stack, RACHEL, { text, output_format: 'pcm_8000' })).status),
    );
    expect(results.every((s) => s === 200)).toBe(true);
    const counts = await Promise.all(stack.workers.map((w) => metrics(w)));
    for (const c of counts) expect(c.jobsCompleted).toBeGreaterThan(0);
  }, 60_000);

  it('an HTTP client that disconnects mid-stream cancels its job: a cancelled history item, nothing charged', async () => {
    const before = (await Promise.all(stack.workers.map((w) => metrics(w)))).reduce((n, m) => n + m.jobsCancelled, 0);
    const countBefore = await characterCount(stack);
    const text = `${LONG} ${LONG}`;
    const controller = new AbortController();
    const res = await fetch(`${stack.url}/v1/text-to-speech/${RACHEL}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
      body: JSON.stringify({ text, output_format: 'mp3_44100_192' }),
      signal: controller.signal,
    });
    const jobId = res.headers.get('history-item-id')!;
    const first = await res.body!.getReader().read();
    expect(first.value!.length).toBeGreaterThan(0); // part of the audio reached the client
    expect(await characterCount(stack)).toBe(countBefore + [...text].length);
    controller.abort();
    await until(
      async () =>
        (await Promise.all(stack.workers.map((w) => metrics(w)))).reduce((n, m) => n + m.jobsCancelled, 0) > before,
      10_000,
    );
    await until(async () => (await stack.redis.keys(`${stack.prefix}:job:*:audio`)).length === 0, 10_000);

    // The generation is recorded once, as cancelled (the gateway records it when the client leaves),
    // with the audio the worker had produced when it stopped (the worker's record brings it).
    const audioOf = () => fetch(`${stack.url}/v1/history/${jobId}/audio`, { headers: { 'xi-api-key': stack.apiKey } });
    await until(async () => (await audioOf()).status === 200, 10_000);
    const items = (await historyItems(stack)).filter((h) => h.text === text);
    expect(items).toEqual([
      expect.objectContaining({
        history_item_id: jobId,
        state: 'cancelled',
        character_count_from_request: [...text].length,
        character_count_change_to: 0,
      }),
    ]);
    const audio = await audioOf();
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toMatch(/^audio\/mpeg/);
    expect((await audio.arrayBuffer()).byteLength).toBeGreaterThan(0);
    // A cancelled generation is charged nothing: the reservation was given back in full.
    expect(await characterCount(stack)).toBe(countBefore);
  }, 30_000);

  it('SIGTERM drains: the job in hand finishes, the worker exits 0, the other takes new work', async () => {
    const pending = tts(stack, RACHEL, { text: `${LONG} ${LONG}`, output_format: 'pcm_22050' });
    let busy: (typeof stack.workers)[number] | undefined;
    const started = await Promise.all(stack.workers.map((w) => metrics(w)));
    await until(async () => {
      const now = await Promise.all(stack.workers.map((w) => metrics(w)));
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

describe('a client that keeps the connection open but stops reading', () => {
  let stack: SpeechStack;
  const STALL_MS = 500;
  beforeAll(async () => {
    stack = await startSpeechStack({
      workers: 1,
      concurrency: 1,
      accountSpeech: true,
      storeQuota: true,
      writeStallTimeoutMs: STALL_MS,
    });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  const jobsCancelled = async () => (await workerJobCounts(stack.workers[0]!)).jobsCancelled;

  /**
   * Sends a TTS request (`/stream` or the whole file) on a raw socket and takes the first bytes
   * (the response head), then reads nothing more: the socket is paused, so Node stops reading once
   * its own small buffer is full, the kernel's receive window closes, and the gateway's writes
   * back up.
   */
  function stalledClient(
    body: unknown,
    route: '/stream' | '' = '/stream',
  ): Promise<{ socket: net.Socket; first: Buffer }> {
    const { hostname, port } = new URL(stack.url);
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: hostname, port: Number(port) }, () => {
        socket.write(
          [
            `POST /v1/text-to-speech/${RACHEL}${route} HTTP/1.1`,
            `Host: ${hostname}:${port}`,
            'Content-Type: application/json',
            `xi-api-key: ${stack.apiKey}`,
            `Content-Length: ${Buffer.byteLength(payload)}`,
            '',
            payload,
          ].join('\r\n'),
        );
      });
      socket.once('data', (first: Buffer) => {
        socket.pause();
        resolve({ socket, first });
      });
      socket.once('error', reject);
    });
  }

  /** Reads what the kernel still holds for a paused socket, until the gateway's close. */
  async function readToClose(socket: net.Socket, first: Buffer): Promise<Buffer> {
    const rest: Buffer[] = [first];
    socket.on('data', (chunk: Buffer) => rest.push(chunk));
    socket.resume();
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    return Buffer.concat(rest);
  }

  it('/stream: given up on after the write-stall timeout: job cancelled, response destroyed, a cancelled history item, characters refunded', async () => {
    const before = await characterCount(stack);
    const cancelledBefore = (await workerJobCounts(stack.workers[0]!)).jobsCancelled;
    // About five minutes of 44.1 kHz PCM (~26 MB): far more than the socket buffers hold.
    const text = `${LONG} ${LONG}`;
    const started = Date.now();
    const { socket, first } = await stalledClient({ text, output_format: 'pcm_44100' });
    const head = first.toString('latin1');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toMatch(/transfer-encoding: chunked/i);
    const jobId = /history-item-id: (\w+)/i.exec(head)![1]!;
    expect(await characterCount(stack)).toBe(before + [...text].length);

    // The gateway gives up once no byte has been taken for the stall timeout, and cancels the job as
    // a disconnect does: the worker (which needs a few seconds for this text) stops within a piece.
    const cancelled = async () => (await workerJobCounts(stack.workers[0]!)).jobsCancelled;
    await until(async () => (await cancelled()) > cancelledBefore, 15_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(STALL_MS);
    await until(async () => (await stack.redis.keys(`${stack.prefix}:job:*:audio`)).length === 0, 10_000);

    // Recorded once, as cancelled, charged nothing: the reservation is back in full. The audio the
    // worker had produced when it stopped joins the item.
    const get = (suffix = '') =>
      fetch(`${stack.url}/v1/history/${jobId}${suffix}`, { headers: { 'xi-api-key': stack.apiKey } });
    await until(async () => (await get('/audio')).status === 200, 10_000);
    expect(await (await get()).json()).toMatchObject({
      history_item_id: jobId,
      state: 'cancelled',
      character_count_from_request: [...text].length,
      character_count_change_to: 0,
    });
    expect((await historyItems(stack)).filter((h) => h.text === text)).toHaveLength(1);
    expect(await characterCount(stack)).toBe(before);

    // Reading again, the client gets what the kernel still held, then the connection ends without
    // the chunked terminator: the response was destroyed, not completed.
    const received = await readToClose(socket, first);
    expect(received.subarray(-7).toString('latin1')).not.toBe('\r\n0\r\n\r\n');
    // Far less than the whole generation (about 26 MB) reached the client.
    expect(received.length).toBeLessThan(10 * 1024 * 1024);
  }, 60_000);

  it('the whole-file route: given up on after the write-stall timeout although the audio was generated: response cut short of its Content-Length, a cancelled history item without audio, characters refunded', async () => {
    const before = await characterCount(stack);
    // About five minutes of 44.1 kHz PCM (~26 MB), a text of its own (the /stream case has one item).
    const text = `${LONG} ${LONG}`.replace(/Sentence/g, 'Line');
    const started = Date.now();
    const { socket, first } = await stalledClient({ text, output_format: 'pcm_44100' }, '');
    // The head comes once the whole file is synthesised; the charge waits for the last byte.
    const head = first.toString('latin1');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    const length = Number(/content-length: (\d+)/i.exec(head)![1]);
    expect(length).toBeGreaterThan(20 * 1024 * 1024);
    const jobId = /history-item-id: (\w+)/i.exec(head)![1]!;
    expect(await characterCount(stack)).toBe(before + [...text].length);

    // The gateway gives up once no byte has been taken for the stall timeout: settled at 0.
    await until(async () => (await characterCount(stack)) === before, 15_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(STALL_MS);

    // The worker finished (it recorded `complete` with the whole file); the gateway's `cancelled`
    // record replaces that item and its audio, whichever lands first: not delivered, not charged.
    const get = (suffix = '') =>
      fetch(`${stack.url}/v1/history/${jobId}${suffix}`, { headers: { 'xi-api-key': stack.apiKey } });
    await until(async () => ((await (await get()).json()) as { state?: string }).state === 'cancelled', 10_000);
    expect(await (await get()).json()).toMatchObject({
      history_item_id: jobId,
      state: 'cancelled',
      character_count_from_request: [...text].length,
      character_count_change_to: 0,
    });
    expect((await get('/audio')).status).toBe(404);
    expect((await historyItems(stack)).filter((h) => h.text === text)).toHaveLength(1);

    // Reading again, the client gets what the kernel still held, then the connection ends short of
    // the declared length: the response was destroyed, not completed.
    const received = await readToClose(socket, first);
    const bodyLength = received.length - (received.indexOf('\r\n\r\n') + 4);
    expect(bodyLength).toBeLessThan(length);
    expect(received.length).toBeLessThan(10 * 1024 * 1024);
  }, 60_000);

  it('stream-input: a client whose socket is paused is closed 1008 with a speech error after the stall timeout; job cancelled, segment not charged', async () => {
    const before = await characterCount(stack);
    const cancelledBefore = await jobsCancelled();
    const text = `${LONG} ${LONG}`.replace(/Sentence/g, 'Part');
    const ws = new WebSocket(`${stack.wsUrl}/v1/text-to-speech/${RACHEL}/stream-input?output_format=pcm_44100`);
    const binary: Buffer[] = [];
    const texts: string[] = [];
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) {
        texts.push(data.toString());
        return;
      }
      // From the first audio on, the client reads nothing: ws pauses its socket.
      if (binary.length === 0) ws.pause();
      binary.push(Buffer.from(data));
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send(JSON.stringify({ text: ' ', xi_api_key: stack.apiKey }));
    ws.send(JSON.stringify({ text, flush: true }));
    await until(async () => ws.isPaused, 15_000);
    expect(await characterCount(stack)).toBe(before + [...text].length);

    // The gateway stops sending once 256 KiB wait for the client, and gives up when the socket has
    // not drained for the stall timeout: the job is cancelled, the segment settled at 0.
    await until(async () => (await jobsCancelled()) > cancelledBefore, 15_000);
    await until(async () => (await characterCount(stack)) === before, 10_000);
    await until(async () => (await stack.redis.keys(`${stack.prefix}:job:*:audio`)).length === 0, 10_000);

    // Reading again, the client gets the audio that was buffered, then the error and the close.
    ws.resume();
    expect(await closed).toEqual({ code: 1008, reason: `the client took no audio for ${STALL_MS / 1000} s` });
    expect(texts.map((t) => JSON.parse(t) as unknown)).toEqual([
      { detail: { status: 'bad_request', message: `the client took no audio for ${STALL_MS / 1000} s` } },
    ]);
    const audio = Buffer.concat(binary).length;
    expect(audio).toBeGreaterThan(0);
    // Far less than the whole generation (about 26 MB) reached the client.
    expect(audio).toBeLessThan(10 * 1024 * 1024);
  }, 60_000);
});

describe('a reservation left by a dead gateway', () => {
  let stack: SpeechStack;
  const MAX_AGE_MS = 3000;
  beforeAll(async () => {
    stack = await startSpeechStack({ workers: 0, accountSpeech: true, storeQuota: true });
    await stack.startWorker({ SPEECH_RESERVATION_SWEEP_MS: '250', SPEECH_RESERVATION_MAX_AGE_MS: String(MAX_AGE_MS) });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it("is released by the workers' sweep once older than its maximum age; a younger one is kept", async () => {
    const account = 'acct_dead_gateway';
    const store = stack.store!;
    // A process reserves characters through the gateway's quota hook, then is killed before settling.
    const child = spawn(process.execPath, [path.join(__dirname, 'support/reserve-and-hang.mjs')], {
      env: {
        ...process.env,
        MONGO_URL: stackEnv().MONGO_URL,
        MONGO_DB: stack.speechDb,
        ACCOUNT_ID: account,
        JOB_ID: 'job_of_a_dead_gateway',
        CHARACTERS: '120',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const reservedAt = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /reserved (\d+)/.exec(out);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`the reserving process exited early (${code})`)));
    });
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    expect((await peekSubscription(store, account))?.characterCount).toBe(120);

    await until(async () => (await peekSubscription(store, account))?.pending.length === 0, 15_000);
    const releasedAt = Date.now();
    expect((await peekSubscription(store, account))?.characterCount).toBe(0);
    // Not before its maximum age (a live gateway may still be relaying it).
    expect(releasedAt - reservedAt).toBeGreaterThanOrEqual(MAX_AGE_MS - 100);

    // A reservation younger than the maximum age survives several sweeps. It is stamped a minute
    // ahead, so no scheduling delay can age it past the maximum while the test watches; each sweep
    // is observed through an aged marker reserved after it, which that sweep releases.
    const stamped = (offsetMs: number): SpeechStore => ({ ...store, now: () => Date.now() + offsetMs });
    await reserveCharacters(stamped(60_000), { accountId: account, plan: 'free', jobId: 'young', characters: 50 });
    for (const marker of ['aged-1', 'aged-2', 'aged-3']) {
      await reserveCharacters(stamped(-2 * MAX_AGE_MS), {
        accountId: account,
        plan: 'free',
        jobId: marker,
        characters: 10,
      });
      await until(
        async () => !(await peekSubscription(store, account))?.pending.some((p) => p.jobId === marker),
        15_000,
      );
    }
    const later = await peekSubscription(store, account);
    expect(later?.pending.map((p) => p.jobId)).toEqual(['young']);
    expect(later?.characterCount).toBe(50);
  }, 60_000);
});

describe('Redis restarted between requests', () => {
  let redis: ChildProcess;
  let port: number;
  let dir: string;
  let stack: SpeechStack;

  async function startRedis(): Promise<void> {
    redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    await until(async () => {
      const probe = new Redis({
        port,
        host: '127.0.0.1',
        lazyConnect: true,
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
      });
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
