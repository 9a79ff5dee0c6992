import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { connectRedis } from '@platform/stores';
import { eventually, freePort, stackEnv, type RunningApp } from '@platform/testing';
import { createApiKey, registerAccount, startPlatform, type Platform } from '../gateway/platform';
import { characterCount, historyItems, recordedHistory, type SpeechAccount } from './support/account-state';
import { followStream, type StoredFrame } from './support/job-streams';
import { workerJobCounts } from './support/speech-stack';
import { connectSession, type Session } from './support/ws-session';

/**
 * Every fault of a rollout or a scale event at once, on the whole platform (two gateway replicas,
 * three synthesis workers), while steady streams run: four `/stream` requests, two through each
 * gateway, and a `stream-input` WebSocket session whose sentences are jobs of their own. One after
 * another: (1) a worker is SIGKILLed mid-stream, (2) a worker is SIGTERMed (drain bound
 * WORKER_DRAIN_MS: its jobs are handed over), (3) a gateway is SIGTERMed with its streams in flight
 * (SHUTDOWN_GRACE_MS: they finish, then it exits), (4) a worker is added and takes the jobs the one
 * worker left could not. Every stream completes with the bytes of an uninterrupted run, charged once,
 * one complete history item per `/stream` job (docs/operations.md "Rolling out and scaling down", "A worker
 * dies mid-job").
 *
 * The engine is eSpeak NG paced like a loaded neural worker (support/paced-espeak.sh: each new piece
 * takes 0.7 times its audio's length), so the streams outlast the faults however slowly the machine
 * runs: each stream's last piece is rendered over a minute after its first, and every fault waits
 * for a condition (a frame by a given writer, an exit, a worker's first job), never for a time.
 */

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const FORMAT = 'pcm_22050';
const SUPPORT = path.join(__dirname, 'support');
/** Sentences of about 130 characters: each is a piece of its own (about 8 s of audio, 5.6 s to render paced). */
const sentences = (label: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `${label} sentence ${i + 1} goes on for quite a while, long enough to be a piece of its own, as a listener hears it in one go, unhurried.`,
  ).join(' ');

/** Four `/stream` texts (labels unique: pacing marks each piece's text) and the WebSocket session's. */
const STREAM_TEXTS = ['Alpha', 'Bravo', 'Charlie', 'Delta'].map((label) => sentences(label, 16));
const SESSION_TEXT = sentences('Echo', 12);

let platform: Platform;
let account: SpeechAccount;
let redis: Redis;
const paceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paced-espeak-'));

beforeAll(async () => {
  platform = await startPlatform({
    gateways: 2,
    gatewayEnv: {
      PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 100, concurrency: 10 } }),
      // Room for the references and the faulted run (the free plan's 10 000 characters are not).
      SPEECH_PLANS: JSON.stringify({ free: { character_limit: 1_000_000 } }),
      // The drained gateway's streams end its grace, not the clock.
      SHUTDOWN_GRACE_MS: '300000',
      // Jobs wait for the added worker (step 4) unrefused: their wait is bounded by the frame timeout.
      SPEECH_QUEUE_WAIT_MS: '0',
      SPEECH_FRAME_TIMEOUT_MS: '60000',
    },
    speechWorkers: {
      count: 3,
      env: {
        // Two slots each, fixed (no calibration): five streams fit three workers, not one.
        WORKER_CONCURRENCY: '2',
        WORKER_REALTIME_STREAMS: '2',
        // A SIGTERMed worker hands its jobs over at its next piece boundary.
        WORKER_DRAIN_MS: '1',
        ESPEAK_BINARY: path.join(SUPPORT, 'paced-espeak.sh'),
        PACED_ESPEAK_DIR: paceDir,
      },
    },
  });
  const registered = await registerAccount(platform.publicUrl, 'Fault Listener');
  account = { url: platform.publicUrl, apiKey: (await createApiKey(platform.auth.url, registered.id)).key };
  redis = await connectRedis(stackEnv().REDIS_URL);
}, 180_000);

afterAll(async () => {
  redis?.disconnect();
  await platform?.stop();
  fs.rmSync(paceDir, { recursive: true, force: true });
}, 60_000);

async function reference(text: string): Promise<Buffer> {
  const res = await fetch(`${account.url}/v1/text-to-speech/${RACHEL}?output_format=${FORMAT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': account.apiKey },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** A `/stream` request through `gateway`, read in the background, its job's frames followed in Redis. */
async function startStream(gateway: RunningApp, text: string) {
  const res = await fetch(`${gateway.url}/v1/text-to-speech/${RACHEL}/stream?output_format=${FORMAT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': account.apiKey },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(200);
  const jobId = res.headers.get('history-item-id')!;
  const state = { ended: false };
  const done = (async () => {
    const chunks: Buffer[] = [];
    const reader = res.body!.getReader();
    let cut = false;
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(Buffer.from(r.value));
    } catch {
      // Cut by the gateway (an error frame, a shutdown past its grace): the bytes so far are the answer.
      cut = true;
    }
    state.ended = true;
    return { audio: Buffer.concat(chunks), cut };
  })();
  return { jobId, text, state, done, stream: followStream(redis, `${platform.speech.keyPrefix}:job:${jobId}:audio`) };
}
type Stream = Awaited<ReturnType<typeof startStream>>;

/** A stream-input session through `gateway` that sends `text` at once and ends its input. */
async function startSession(gateway: RunningApp, text: string): Promise<Session> {
  const session = connectSession(
    `${gateway.url.replace('http', 'ws')}/v1/text-to-speech/${RACHEL}/stream-input?output_format=${FORMAT}&inactivity_timeout=180`,
    {
      'xi-api-key': account.apiKey,
    },
  );
  await session.opened;
  session.ws.send(JSON.stringify({ text: ' ' }));
  session.ws.send(JSON.stringify({ text: `${text} ` }));
  session.ws.send(JSON.stringify({ text: '' }));
  return session;
}

function workerOf(writer: string): RunningApp {
  const worker = platform.workers.find((w) => writer.endsWith(`:${w.process.pid}`));
  if (!worker) throw new Error(`no worker of this platform is ${writer}`);
  return worker;
}

const lastAudio = (s: Stream): StoredFrame | undefined => s.stream.frames.findLast((f) => f.frame.type === 'audio');

it('a worker SIGKILLed, a worker SIGTERMed, a gateway SIGTERMed and a worker added under steady streams: every stream byte-identical, charged once, one complete history item per /stream job', async () => {
  const [gatewayA, gatewayB] = platform.gateways as [RunningApp, RunningApp];

  // Uninterrupted references (eSpeak NG's own speed: pacing is off), and what the session is charged.
  const expected = await Promise.all(STREAM_TEXTS.map(reference));
  const beforeSession = await characterCount(account);
  const referenceSession = await startSession(gatewayA, SESSION_TEXT);
  expect(await referenceSession.closed).toEqual({ code: 1000, reason: 'done' });
  const expectedSession = Buffer.concat(referenceSession.binary);
  const sessionCharge = (await characterCount(account)) - beforeSession;
  expect(sessionCharge).toBeGreaterThan(0);
  fs.writeFileSync(path.join(paceDir, 'on'), '');
  const before = await characterCount(account);

  // Steady streams: two `/stream` through each gateway, the session through the one that will drain.
  const streams = [
    await startStream(gatewayA, STREAM_TEXTS[0]!),
    await startStream(gatewayA, STREAM_TEXTS[1]!),
    await startStream(gatewayB, STREAM_TEXTS[2]!),
    await startStream(gatewayB, STREAM_TEXTS[3]!),
  ];
  const onB = streams.slice(2);
  const session = await startSession(gatewayB, SESSION_TEXT);
  let sessionClosed = false;
  void session.closed.then(() => (sessionClosed = true));
  await eventually(() => streams.every((s) => lastAudio(s) !== undefined), 120_000, 10);

  // (1) SIGKILL of the worker that wrote the newest audio: its streams go on from another worker.
  const newest = streams.map((s) => lastAudio(s)!).reduce((a, b) => (b.atMs > a.atMs ? b : a));
  const killed = workerOf(newest.writer);
  const killedStreams = streams.filter((s) => s.stream.frames.at(-1)?.writer === newest.writer);
  killed.process.kill('SIGKILL');
  await killed.exited;
  const diedAt = Math.max(...killedStreams.map((s) => s.stream.frames.at(-1)!.atMs));
  await eventually(
    () => killedStreams.every((s) => s.stream.frames.some((f) => f.atMs >= diedAt && f.writer !== newest.writer)),
    120_000,
    5,
  );

  // (2) SIGTERM of another worker with a stream in hand: it hands its jobs over and exits 0.
  const alive = (writer: string) => writer !== newest.writer && workerOf(writer).process.exitCode === null;
  let drainedWriter = '';
  await eventually(
    () => {
      drainedWriter =
        streams.map((s) => s.stream.frames.at(-1)).find((f) => f?.frame.type === 'audio' && alive(f.writer))?.writer ??
        '';
      return drainedWriter !== '';
    },
    120_000,
    5,
  );
  const drained = workerOf(drainedWriter);
  drained.process.kill('SIGTERM');
  expect(await drained.exited).toBe(0);
  const drainedStreams = streams.filter((s) => s.stream.frames.some((f) => f.writer === drainedWriter));

  // (3) SIGTERM of gateway B with its streams (two `/stream` and the session) in flight.
  expect([...onB.map((s) => s.state.ended), sessionClosed]).toEqual([false, false, false]);
  gatewayB.process.kill('SIGTERM');
  await eventually(async () => (await fetch(`${gatewayB.url}/readyz`)).status === 503, 30_000, 20);

  // (4) A worker added: one worker's three slots do not hold five streams, so it takes work.
  const metricsPort = await freePort();
  const added = {
    ...(await platform.startWorker({ METRICS_PORT: String(metricsPort) })),
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
  };
  await eventually(async () => (await workerJobCounts(added)).jobsStarted > 0, 120_000, 50);

  const results = await Promise.all(streams.map((s) => s.done));
  await Promise.all(streams.map((s) => s.stream.stop()));
  expect(await session.closed).toEqual({ code: 1000, reason: 'done' });
  // Its streams over, the drained gateway exits, cleanly.
  expect(await gatewayB.exited).toBe(0);

  // The gateway ends a response cleanly only on the job's end frame (an error frame cuts it); the
  // followers may miss that last frame (the gateway deletes the stream once it has relayed it).
  expect(results.map((r) => r.cut)).toEqual([false, false, false, false]);
  results.forEach((r, i) => expect(r.audio.equals(expected[i]!)).toBe(true));
  expect(session.texts.map((t) => JSON.parse(t) as unknown)).toEqual([{ isFinal: true }]);
  expect(Buffer.concat(session.binary).equals(expectedSession)).toBe(true);
  for (const s of streams) {
    const frames = s.stream.frames;
    expect(frames.map((f) => f.frame.seq)).toEqual(frames.map((_, i) => i));
    expect(
      frames.filter((f) => f.frame.type !== 'audio' && f.frame.type !== 'piece' && f.frame.type !== 'end'),
    ).toEqual([]);
  }
  // The faulted workers' streams were continued by others after their last frame.
  for (const [writer, affected] of [
    [newest.writer, killedStreams],
    [drainedWriter, drainedStreams],
  ] as const) {
    expect(affected.length).toBeGreaterThan(0);
    for (const s of affected) {
      const last = s.stream.frames.findLastIndex((f) => f.writer === writer);
      expect(s.stream.frames.slice(last + 1).some((f) => f.frame.type === 'audio' && f.writer !== writer)).toBe(true);
    }
  }

  // Charged once: each stream its text, the session what its uninterrupted run was charged.
  const charged = STREAM_TEXTS.reduce((sum, t) => sum + [...t].length, 0) + sessionCharge;
  expect(await characterCount(account)).toBe(before + charged);
  // One complete history item per `/stream` job (a session keeps none: docs/speech.md, "Decisions
  // where the interface is silent"), recorded by its worker just after the job's last frame.
  for (const s of streams) {
    expect(await recordedHistory(account, (h) => h.history_item_id === s.jobId)).toEqual([
      expect.objectContaining({ state: 'complete', character_count_change_to: [...s.text].length }),
    ]);
  }
  const items = await historyItems(account);
  expect(items).toHaveLength(2 * STREAM_TEXTS.length);
  expect(items.filter((h) => h.state !== 'complete')).toEqual([]);
}, 600_000);
