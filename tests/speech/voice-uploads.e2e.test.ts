import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UPLOAD_LIMITS } from '../../apps/gateway/src/speech/voices/upload-limits';
import { createApiKey, eventually, registerAccount, startPlatform, type Platform } from '../gateway/platform';
import { espeakWav, REFERENCE_TEXT } from '../voices/audio';

/**
 * Voice cloning must not stall the gateway: the plan's voice quota is checked before the upload is
 * read, and decoding and analysis run on worker threads, so `/healthz` keeps answering while the
 * largest allowed upload is analysed. The real gateway process (tests/gateway platform helpers);
 * every account is on the free plan, whose voice limit this file sets with SPEECH_PLANS.
 */
const VOICE_LIMIT = 1;
/** What the interface promises a health probe while clone uploads are analysed. */
const HEALTHZ_BOUND_MS = 50;

let platform: Platform;
let gateway: string;

interface Caller {
  key: string;
}

async function newCaller(name: string): Promise<Caller> {
  const account = await registerAccount(platform.publicUrl, name);
  return { key: (await createApiKey(platform.auth.url, account.id)).key };
}

/** Speech looped to just under the longest allowed sample, as FLAC (about 3 MB). */
let longest: Buffer | undefined;
function longestSample(): Buffer {
  if (longest) return longest;
  // ffmpeg loops a file, not a pipe.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-uploads-'));
  try {
    const speech = path.join(dir, 'speech.wav');
    fs.writeFileSync(speech, espeakWav(REFERENCE_TEXT, 'en+m3', 30));
    const seconds = String(UPLOAD_LIMITS.maxFileSeconds - 1);
    longest = execFileSync('ffmpeg', ['-v', 'error', '-nostdin', '-stream_loop', '-1', '-i', speech, '-t', seconds, '-c:a', 'flac', '-f', 'flac', 'pipe:1'], { maxBuffer: 64 * 1024 * 1024 });
    return longest;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A multipart/form-data body as the platform's clients send it (fetch's own encoding of FormData). */
async function encodeForm(fields: Record<string, string>, files: { name: string; bytes: Buffer }[]): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('files', new Blob([new Uint8Array(f.bytes)], { type: 'audio/flac' }), f.name);
  const request = new Request('http://encoder.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

/**
 * Streams `body` in pieces; `hold` (when given) is awaited before anything past the first `holdAfter`
 * bytes is sent. `sent` resolves once the last byte has been handed to the connection.
 */
function streamedBody(body: Buffer, options: { holdAfter?: number; hold?: Promise<unknown> } = {}) {
  let offset = 0;
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (options.hold && options.holdAfter !== undefined && offset >= options.holdAfter) await options.hold;
      const end = Math.min(body.length, offset + 256 * 1024, options.holdAfter !== undefined && offset < options.holdAfter ? options.holdAfter : body.length);
      controller.enqueue(new Uint8Array(body.subarray(offset, end)));
      offset = end;
      if (offset >= body.length) {
        controller.close();
        markSent();
      }
    },
  });
  return { stream, sent, sentBytes: () => offset };
}

function upload(caller: Caller, contentType: string, stream: ReadableStream<Uint8Array>): Promise<Response> {
  return fetch(`${gateway}/v1/voices/add`, {
    method: 'POST',
    headers: { 'xi-api-key': caller.key, 'content-type': contentType },
    body: stream,
    duplex: 'half',
  } as RequestInit);
}

interface Probe {
  sentAt: number;
  latencyMs: number;
  status: number;
}

/** `/healthz` probed from a process of its own (support/healthz-prober.mjs) until `stop`. */
function startProber(url: string) {
  const child = spawn(process.execPath, [path.join(__dirname, 'support', 'healthz-prober.mjs'), url], { stdio: ['pipe', 'pipe', 'inherit'] });
  const probes: Probe[] = [];
  let rest = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const [sentAt, latencyMs, status] = line.split(' ').map(Number);
      probes.push({ sentAt: sentAt!, latencyMs: latencyMs!, status: status! });
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    probes,
    async stop(): Promise<Probe[]> {
      child.stdin.end();
      await exited;
      return probes;
    },
  };
}

beforeAll(async () => {
  platform = await startPlatform({
    gatewayEnv: {
      SPEECH_PLANS: JSON.stringify({ free: { character_limit: 1_000, voice_limit: VOICE_LIMIT, max_voice_add_edits: 10 } }),
      PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 1000, concurrency: 100 } }),
      LOG_LEVEL: 'warn',
    },
  });
  gateway = platform.publicUrl;
}, 120_000);

afterAll(async () => {
  await platform?.stop();
}, 30_000);

describe('voice cloning does not stall the gateway', () => {
  it('/healthz answers within 50 ms while the largest allowed upload is decoded and analysed', async () => {
    const me = await newCaller('Big upload');
    const sample = longestSample();
    // As many of the longest files as the per-request byte bound allows, never more than maxFiles.
    const count = Math.min(UPLOAD_LIMITS.maxFiles, Math.floor((UPLOAD_LIMITS.maxTotalBytes - 64 * 1024) / sample.length));
    expect(count).toBe(UPLOAD_LIMITS.maxFiles);
    const files = Array.from({ length: count }, (_, i) => ({ name: `long-${i}.flac`, bytes: sample }));
    const { body, contentType } = await encodeForm({ name: 'Ten long samples' }, files);

    const prober = startProber(`${gateway}/healthz`);
    // The prober is up and warm (its first fetch sets up its client and connection) before the upload starts.
    await eventually(() => prober.probes.length >= 5, 10_000);
    const uploadStartedAt = Date.now();
    const streamed = streamedBody(body);
    let bodySentAt = Number.POSITIVE_INFINITY;
    void streamed.sent.then(() => (bodySentAt = Date.now()));
    const res = await upload(me, contentType, streamed.stream);
    const answeredAt = Date.now();
    const probes = (await prober.stop()).filter((p) => p.sentAt >= uploadStartedAt);
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 200,
      body: { voice_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/), name: 'Ten long samples', category: 'cloned', requires_verification: false },
    });
    // The analysis of ten two-minute files takes seconds: many probes fell inside it.
    expect(probes.filter((p) => p.sentAt > bodySentAt && p.sentAt < answeredAt).length).toBeGreaterThanOrEqual(10);
    expect(probes.every((p) => p.status === 200)).toBe(true);
    expect(Math.max(...probes.map((p) => p.latencyMs))).toBeLessThan(HEALTHZ_BOUND_MS);
  }, 120_000);

  it('an account with no voice slot left is refused before its upload is read', async () => {
    const me = await newCaller('No slots');
    const small = await encodeForm({ name: 'Only voice' }, [{ name: 'ref.wav', bytes: espeakWav(REFERENCE_TEXT, 'en+m3', 30) }]);
    const first = await upload(me, small.contentType, streamedBody(small.body).stream);
    expect(first.status).toBe(200);

    // The second upload sends its head and the start of the first file, then waits for the answer.
    const { body, contentType } = await encodeForm({ name: 'One too many' }, [{ name: 'long.flac', bytes: longestSample() }]);
    let answered!: () => void;
    const answer = new Promise<void>((resolve) => (answered = resolve));
    const streamed = streamedBody(body, { holdAfter: 64 * 1024, hold: answer });
    const res = await upload(me, contentType, streamed.stream);
    answered();
    expect(streamed.sentBytes()).toBeLessThan(body.length);
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ detail: { status: 'quota_exceeded', message: expect.stringMatching(/allows 1 voices/) } });
  }, 60_000);

  it('one upload of an account at a time: a second one while the first is in progress is 429 too_many_requests', async () => {
    const me = await newCaller('Two at once');
    const { body, contentType } = await encodeForm({ name: 'First' }, [{ name: 'ref.wav', bytes: espeakWav(REFERENCE_TEXT, 'en+m3', 30) }]);
    let go!: () => void;
    const hold = new Promise<void>((resolve) => (go = resolve));
    const streamed = streamedBody(body, { holdAfter: 1024, hold });
    const first = upload(me, contentType, streamed.stream);
    // Until the first upload is admitted, a second one is (and, carrying no file, refused 400 with no
    // effect); once the first is in progress, the second is refused 429 before its body is read.
    const noFiles = await encodeForm({ name: 'Second' }, []);
    let refusal: unknown;
    await eventually(async () => {
      const res = await upload(me, noFiles.contentType, streamedBody(noFiles.body).stream);
      refusal = await res.json();
      if (res.status !== 429) expect({ status: res.status, body: refusal }).toEqual({ status: 400, body: { detail: { status: 'bad_request', message: expect.stringMatching(/At least one audio file/) } } });
      return res.status === 429;
    }, 10_000);
    expect(refusal).toEqual({ detail: { status: 'too_many_requests', message: expect.stringMatching(/At most 1 voice upload of an account/) } });
    go();
    expect((await first).status).toBe(200);
  }, 60_000);
});
