import path from 'node:path';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { connectRedis } from '@platform/stores';
import { eventually, freePort, scrapeMetrics, stackEnv, sumOf, type RunningApp } from '@platform/testing';
import { createApiKey, registerAccount, startPlatform, type Platform } from '../gateway/platform';

/**
 * The gateway's speech-stream metrics (docs/operations.md "Metrics") against what a listener of a
 * real `/stream` hears, read from the gateway process's `/metrics` (METRICS_PORT): an underrun is
 * counted with its longest silence, a stream that never ran dry is counted without one, and the
 * age of the oldest waiting job shows while a job waits. The workers are paused with SIGSTOP, so
 * when audio stops and jobs wait is decided by the test, not by this machine's speed.
 */

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
/** pcm_16000: 16-bit mono, so the bytes alone say how much audio arrived. */
const PCM_BYTES_PER_SECOND = 32_000;
/** Every piece of this text takes the worker 0.5 s more (support/slow-espeak.sh), so its audio is still being made when the worker is paused after the first audio. */
const SLOW_TEXT = Array.from(
  { length: 12 },
  (_, i) => `Take your time with sentence number ${i + 1} of this stream.`,
).join(' ');
/** The silence the paused worker must make the listener hear before it resumes. */
const SILENCE_SECONDS = 1.5;
/** The gateway hands audio over a moment before the client reads it: the two clocks of one silence differ by that much at most. */
const TOLERANCE_SECONDS = 0.25;

let platform: Platform;
let worker: RunningApp;
let gateway: RunningApp;
let apiKey: string;
let metricsUrl: string;
let redis: Redis;
let queue: Queue;

beforeAll(async () => {
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}`;
  platform = await startPlatform({
    // No refusal or frame timeout while a test holds the worker or the gateway paused.
    gatewayEnv: {
      METRICS_PORT: String(metricsPort),
      SPEECH_QUEUE_WAIT_MS: '60000',
      SPEECH_FRAME_TIMEOUT_MS: '60000',
      PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 100, concurrency: 10 } }),
    },
    speechWorkers: {
      // A lock longer than any pause here: the paused worker keeps its job (no takeover).
      env: {
        WORKER_REALTIME_STREAMS: '2',
        SYNTHESIS_LOCK_MS: '60000',
        ESPEAK_BINARY: path.join(__dirname, 'support/slow-espeak.sh'),
      },
    },
  });
  worker = platform.workers[0]!;
  gateway = platform.gateways[0]!;
  const account = await registerAccount(platform.publicUrl, 'Stream Metrics');
  apiKey = (await createApiKey(platform.auth.url, account.id)).key;
  redis = await connectRedis(stackEnv().REDIS_URL);
  queue = new Queue(platform.speech.queue, { connection: redis.duplicate({ maxRetriesPerRequest: null }) });
}, 180_000);

afterAll(async () => {
  await queue?.close();
  redis?.disconnect();
  await platform?.stop();
}, 60_000);

function stream(text: string): Promise<Response> {
  return fetch(`${platform.publicUrl}/v1/text-to-speech/${RACHEL}/stream?output_format=pcm_16000`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': apiKey },
    body: JSON.stringify({ text }),
  });
}

/** The gateway's `/stream` listening metrics now. */
async function streamMetrics(): Promise<{
  underruns: number;
  silenceSum: number;
  silenceCount: number;
  oldestWait: number;
}> {
  const samples = await scrapeMetrics(metricsUrl);
  const surface = { surface: 'stream' };
  return {
    underruns: sumOf(samples, 'speech_stream_underruns_total', surface),
    silenceSum: sumOf(samples, 'speech_stream_longest_silence_seconds_sum', surface),
    silenceCount: sumOf(samples, 'speech_stream_longest_silence_seconds_count', surface),
    oldestWait: sumOf(samples, 'synthesis_queue_oldest_wait_seconds', { queue: platform.speech.queue }),
  };
}

/** Audio arriving at the client: when (ms, performance.now) and how many bytes. */
interface Arrival {
  atMs: number;
  bytes: number;
}

/**
 * A listener's player over `arrivals` (time order): it starts at the first audio and plays
 * everything back to back at real time. `playsUntil`: when what arrived is played out (ms);
 * `longestSilence`: the longest wait for the next audio after running dry (seconds).
 */
function heard(arrivals: readonly Arrival[]): { playsUntil: number; longestSilence: number } {
  let playsUntil = arrivals[0]?.atMs ?? 0;
  let longest = 0;
  for (const { atMs, bytes } of arrivals) {
    longest = Math.max(longest, (atMs - playsUntil) / 1000);
    playsUntil = Math.max(playsUntil, atMs) + (bytes / PCM_BYTES_PER_SECOND) * 1000;
  }
  return { playsUntil, longestSilence: longest };
}

/** Reads `res`'s body to its end, logging each arrival; `done` is set once it has ended. */
function record(res: Response): { arrivals: Arrival[]; finished: Promise<void>; done: () => boolean } {
  const arrivals: Arrival[] = [];
  let ended = false;
  const reader = res.body!.getReader();
  const finished = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arrivals.push({ atMs: performance.now(), bytes: value.byteLength });
    }
    ended = true;
  })();
  return { arrivals, finished, done: () => ended };
}

describe('speech stream metrics at the gateway', () => {
  it('counts a stream whose worker paused after the first audio as an underrun, with at least the silence its listener heard', async () => {
    const before = await streamMetrics();
    const res = await stream(SLOW_TEXT);
    expect(res.status).toBe(200);
    const listening = record(res);
    await eventually(() => listening.arrivals.length > 0, 30_000, 5);
    worker.process.kill('SIGSTOP');
    let endedWhilePaused: boolean;
    try {
      // The audio that reached the client before the pause plays out, then the listener waits.
      await eventually(
        () => listening.done() || performance.now() - heard(listening.arrivals).playsUntil >= SILENCE_SECONDS * 1000,
        60_000,
        20,
      );
      endedWhilePaused = listening.done();
    } finally {
      worker.process.kill('SIGCONT');
    }
    // The worker was paused mid-stream: the rest of the text was still to come.
    expect(endedWhilePaused).toBe(false);
    await listening.finished;
    const measured = heard(listening.arrivals).longestSilence;
    expect(measured).toBeGreaterThanOrEqual(SILENCE_SECONDS);

    await eventually(async () => (await streamMetrics()).silenceCount === before.silenceCount + 1, 10_000, 100);
    const after = await streamMetrics();
    expect(after.underruns - before.underruns).toBe(1);
    expect(after.silenceSum - before.silenceSum).toBeGreaterThanOrEqual(measured - TOLERANCE_SECONDS);
  }, 120_000);

  it('counts a stream whose whole audio reached the gateway before its first audio was relayed without an underrun', async () => {
    // The worker makes the whole job while the gateway is paused; resumed, the gateway relays it all
    // at once, so the player never needs audio that has not arrived (whatever this machine's load
    // while the worker ran).
    const before = await streamMetrics();
    worker.process.kill('SIGSTOP');
    let response: Promise<Response>;
    let jobId = '';
    try {
      response = stream('A short stream, heard without a pause.');
      // This job, by its id: the worker may still be finishing the previous test's job (its history
      // record), so counting completed jobs could see that one instead.
      await eventually(async () => {
        jobId = (await queue.getJobs(['waiting', 'prioritized']))[0]?.id ?? '';
        return jobId !== '';
      }, 30_000);
      gateway.process.kill('SIGSTOP');
    } finally {
      worker.process.kill('SIGCONT');
    }
    try {
      await eventually(async () => (await queue.getJobState(jobId)) === 'completed', 30_000);
    } finally {
      gateway.process.kill('SIGCONT');
    }
    const res = await response;
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(PCM_BYTES_PER_SECOND / 2);

    await eventually(async () => (await streamMetrics()).silenceCount === before.silenceCount + 1, 10_000, 100);
    const after = await streamMetrics();
    expect(after.underruns).toBe(before.underruns);
    expect(after.silenceSum).toBe(before.silenceSum);
  }, 120_000);

  it('shows how long the oldest job has waited while no worker takes it, and 0 once it ran', async () => {
    expect((await streamMetrics()).oldestWait).toBe(0);
    worker.process.kill('SIGSTOP');
    let response: Promise<Response>;
    try {
      response = stream('Waiting for a worker.');
      await eventually(async () => (await streamMetrics()).oldestWait > 0, 30_000, 100);
    } finally {
      worker.process.kill('SIGCONT');
    }
    const res = await response;
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    await eventually(async () => (await streamMetrics()).oldestWait === 0, 30_000, 100);
  }, 120_000);
});
