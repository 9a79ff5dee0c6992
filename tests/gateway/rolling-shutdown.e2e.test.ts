import WebSocket from 'ws';
import { freePort, startApp, type RunningApp } from '@platform/testing';
import { connectSession } from '../speech/support/ws-session';
import { createApiKey, eventually, registerAccount, startPlatform, type Platform } from './platform';

/**
 * A gateway replica taken down by a rollout or a scale-down (SIGTERM): `/readyz` turns 503 at once,
 * new requests and WebSocket upgrades are refused 503 with Retry-After, the work in flight goes on
 * up to SHUTDOWN_GRACE_MS (a `/stream` finishes whole, recorded complete and charged once), and a
 * WebSocket still open when the grace is over is closed 1012 (docs/gateway.md, "Shutdown").
 */

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
// eSpeak NG (the default model) is deterministic: the same request gives the same bytes.
const TEXT = Array.from(
  { length: 40 },
  (_, i) => `Rollout sentence ${i + 1} keeps this stream going for a while.`,
).join(' ');
// 24 kHz PCM: megabytes of audio, more than the sockets between a paused client and the gateway hold,
// so the response is still in flight while the client does not read.
const BODY = JSON.stringify({ text: TEXT, output_format: 'pcm_24000' });

let platform: Platform;
let apiKey: string;
const extra: RunningApp[] = [];

beforeAll(async () => {
  const roomy = JSON.stringify({ free: { rps: 100, concurrency: 10 } });
  platform = await startPlatform({ speechWorkers: { count: 1 }, gatewayEnv: { PLAN_LIMITS_JSON: roomy } });
  const account = await registerAccount(platform.publicUrl, 'Rollout Listener');
  apiKey = (await createApiKey(platform.auth.url, account.id)).key;
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(extra.map((g) => g.stop('SIGKILL')));
  await platform?.stop();
}, 60_000);

/** One more gateway replica on the platform's queue and databases, with settings of its own. */
async function startReplica(env: Record<string, string>): Promise<RunningApp> {
  const gateway = await startApp({
    app: 'gateway',
    env: { ...platform.gatewayEnv(await freePort()), ...env },
    readyTimeoutMs: 60_000,
  });
  extra.push(gateway);
  return gateway;
}

const tts = (base: string, route: '/stream' = '/stream') =>
  fetch(`${base}/v1/text-to-speech/${RACHEL}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': apiKey },
    body: BODY,
  });

async function characterCount(): Promise<number> {
  const res = await fetch(`${platform.publicUrl}/v1/user/subscription`, { headers: { 'xi-api-key': apiKey } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { character_count: number }).character_count;
}

/** The history item's state; `missing` until it is recorded. */
async function historyState(id: string): Promise<string> {
  const res = await fetch(`${platform.publicUrl}/v1/history/${id}`, { headers: { 'xi-api-key': apiKey } });
  if (res.status === 404) return 'missing';
  expect(res.status).toBe(200);
  return ((await res.json()) as { state: string }).state;
}

/** Reads the rest of a body; rejects when the gateway cut it. */
async function readRest(reader: ReadableStreamDefaultReader<Uint8Array>, chunks: Buffer[]): Promise<Buffer> {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    chunks.push(Buffer.from(value));
  }
}

it('SIGTERM with a /stream in flight: readyz 503 at once, new work refused 503, the stream finishes byte-identical, complete, charged once; exit 0', async () => {
  const reference = await tts(platform.publicUrl);
  expect(reference.status).toBe(200);
  const expected = Buffer.from(await reference.arrayBuffer());
  const before = await characterCount();

  // A grace far longer than the stream needs: the stream ends it, not the clock.
  const gateway = await startReplica({ SHUTDOWN_GRACE_MS: '300000' });
  const res = await tts(gateway.url);
  expect(res.status).toBe(200);
  const historyId = res.headers.get('history-item-id')!;
  const reader = res.body!.getReader();
  const first = await reader.read();
  expect(first.done).toBe(false);
  // The client stops reading: the response stays in flight through the shutdown.
  gateway.process.kill('SIGTERM');

  await eventually(async () => (await fetch(`${gateway.url}/readyz`)).status === 503, 10_000, 20);
  // New requests are refused in the speech API's shape, with Retry-After, and the connection closed.
  const refused = await tts(gateway.url);
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(refused.headers.get('connection')).toBe('close');
  expect(await refused.json()).toEqual({
    detail: { status: 'error', message: expect.stringContaining('shutting down') },
  });
  // So are WebSocket upgrades (stream-input), at the HTTP level.
  const upgrade = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/text-to-speech/${RACHEL}/stream-input`, {
    headers: { 'xi-api-key': apiKey },
  });
  upgrade.on('error', () => undefined);
  const upgradeAnswer = await new Promise<{ status?: number; retryAfter?: string }>((resolve) => {
    upgrade.once('unexpected-response', (_req, response) => {
      resolve({ status: response.statusCode, retryAfter: String(response.headers['retry-after']) });
      response.resume();
    });
    upgrade.once('open', () => resolve({}));
  });
  expect(upgradeAnswer).toEqual({ status: 503, retryAfter: '1' });

  // The stream in flight is not cut: it ends whole, with the bytes of an uninterrupted generation.
  const audio = await readRest(reader, [Buffer.from(first.value!)]);
  expect(audio.length).toBe(expected.length);
  expect(audio.equals(expected)).toBe(true);
  // Nothing left in flight: the replica exits at once, cleanly.
  expect(await gateway.exited).toBe(0);

  // Recorded complete (by the worker, once it has ended the job) and charged once (the reference generation is charged too).
  await eventually(async () => (await historyState(historyId)) === 'complete', 30_000, 50);
  expect(await characterCount()).toBe(before + [...TEXT].length);
}, 180_000);

it('a stream-input WebSocket still open when the grace is over is closed 1012 with a reason; exit 0', async () => {
  // The session's own idle timeout far beyond the grace: only the shutdown closes it.
  const gateway = await startReplica({ SHUTDOWN_GRACE_MS: '500', SPEECH_WS_IDLE_TIMEOUT_MS: '300000' });
  const session = connectSession(`${gateway.url.replace('http', 'ws')}/v1/text-to-speech/${RACHEL}/stream-input`, {
    'xi-api-key': apiKey,
  });
  await session.opened;
  session.ws.send(JSON.stringify({ text: ' ' }));
  gateway.process.kill('SIGTERM');
  const closed = await session.closed;
  expect(closed).toEqual({ code: 1012, reason: 'the gateway is restarting; reconnect' });
  expect(await gateway.exited).toBe(0);
}, 120_000);
