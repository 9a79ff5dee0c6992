import fc from 'fast-check';
import WebSocket from 'ws';
import { createApiKey, registerAccount, startPlatform, type Platform } from '../gateway/platform';

/**
 * Property-based fuzzing of the speech interface's inputs through the real gateway process: TTS
 * request bodies and query strings (REST), and stream-input messages (WebSocket), random and
 * mutated from valid ones. Whatever arrives, the gateway answers in the speech error shape with a
 * 4xx (never a 5xx), closes a WebSocket with a documented code (never 1011 or an abnormal close),
 * and is still ready afterwards. Seeded and bounded: the same cases on every run.
 *
 * The account's plan has no characters, so every request that passes validation is refused by the
 * quota (401 `character_limit_exceeded`) instead of waiting for synthesis: no worker is needed.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const SEED = 20_261_123;

let platform: Platform;
let key: string;

beforeAll(async () => {
  platform = await startPlatform({
    gatewayEnv: {
      SPEECH_PLANS: JSON.stringify({ free: { character_limit: 0 } }),
      // The fuzzer is one client sending many requests and refused logins: not what is under test.
      PLAN_LIMITS_JSON: JSON.stringify({
        free: { rps: 10_000, concurrency: 100 },
        anonymous: { rps: 10_000, concurrency: 100 },
      }),
      SPEECH_WS_IDLE_TIMEOUT_MS: '3000',
      SPEECH_WS_AUTH_TIMEOUT_MS: '2000',
      LOG_LEVEL: 'warn',
    },
  });
  const account = await registerAccount(platform.publicUrl, 'Fuzz');
  key = (await createApiKey(platform.auth.url, account.id)).key;
}, 120_000);

afterAll(async () => {
  await platform?.stop();
}, 30_000);

const speechError = { detail: { status: expect.any(String), message: expect.any(String) } };

// --- generators -------------------------------------------------------------------------------

/** Any JSON value, including the wrong type for every field. */
const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Strings a text field may meet: ordinary, unicode, control characters, empty, long. */
const texts = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', 'Hello.', '<speak>hi</speak>'),
  fc.integer({ min: 4_990, max: 70_000 }).map((n) => 'a'.repeat(n)),
);

const formats = fc.oneof(
  fc.constantFrom(
    'mp3_44100_128',
    'mp3_22050_32',
    'pcm_16000',
    'pcm_44100',
    'ulaw_8000',
    'opus_48000_64',
    'wav',
    'mp3_0_0',
    '',
  ),
  fc.string({ maxLength: 20 }),
);
const models = fc.oneof(
  fc.constantFrom('eleven_multilingual_v2', 'eleven_flash_v2_5', 'eleven_neural_v1', 'espeak', ''),
  fc.string({ maxLength: 20 }),
);
const settings = fc.oneof(
  anyJson,
  fc.record(
    {
      stability: fc.oneof(fc.double(), anyJson),
      similarity_boost: fc.oneof(fc.double({ min: -1, max: 2 }), anyJson),
      style: fc.oneof(fc.double(), anyJson),
      use_speaker_boost: fc.oneof(fc.boolean(), anyJson),
      speed: fc.oneof(fc.double({ min: -10, max: 10 }), anyJson),
    },
    { requiredKeys: [] },
  ),
);

const speakable = fc.string({ minLength: 1, maxLength: 60 }).filter((t) => t.trim().length > 0);
const validBody = fc.record(
  {
    text: speakable,
    model_id: fc.constantFrom('eleven_multilingual_v2', 'eleven_flash_v2_5'),
    voice_settings: fc.record({
      stability: fc.double({ min: 0, max: 1, noNaN: true }),
      similarity_boost: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
    output_format: fc.constantFrom('mp3_44100_128', 'pcm_16000', 'ulaw_8000'),
  },
  { requiredKeys: ['text'] },
);
/** A valid body with one field replaced by anything. */
const mutatedBody = fc
  .tuple(
    validBody,
    fc.constantFrom('text', 'model_id', 'voice_settings', 'output_format', 'language_code', '__proto__', 'constructor'),
    anyJson,
  )
  .map(([body, field, value]) => ({ ...body, [field]: value }));

/** A TTS body: a valid one, one with a field mutated, one with every field anything, or any JSON at all. */
const ttsBody = fc.oneof(
  validBody,
  { weight: 2, arbitrary: mutatedBody },
  fc.record(
    {
      text: fc.oneof(texts, anyJson),
      model_id: fc.oneof(models, anyJson),
      voice_settings: settings,
      output_format: fc.oneof(formats, anyJson),
      language_code: fc.oneof(fc.constantFrom('en', 'de', 'xx', ''), fc.string({ maxLength: 10 }), anyJson),
      seed: anyJson,
      previous_text: anyJson,
      pronunciation_dictionary_locators: anyJson,
    },
    { requiredKeys: [] },
  ),
  anyJson,
);

/** A raw body: JSON of a generated value, or bytes that are not JSON at all. */
const rawBody = fc.oneof(
  { weight: 4, arbitrary: ttsBody.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  { weight: 1, arbitrary: ttsBody.map((v) => (JSON.stringify(v) ?? 'null').slice(0, -1)) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 60_000, max: 200_000 }).map((n) => JSON.stringify({ text: 'x'.repeat(n) })),
  },
);

const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          'output_format',
          'optimize_streaming_latency',
          'enable_logging',
          'model_id',
          'voice_id',
          'inactivity_timeout',
          'message_format',
          'sync_alignment',
          'language_code',
          'xi_api_key',
        ),
        fc.string({ maxLength: 10 }),
      ),
      fc.oneof(
        formats,
        fc.string({ maxLength: 20 }),
        fc.constantFrom('json', 'true', 'false', '-1', '0', '181', '1e9', '%', '%zz'),
      ),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

const voiceSegment = fc.oneof(
  { weight: 4, arbitrary: fc.constant(RACHEL) },
  fc.constantFrom('eleven_flash_v2_5', 'x'.repeat(64)),
  fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent),
);

// --- REST -------------------------------------------------------------------------------------

describe('fuzz: TTS REST bodies and query strings', () => {
  it('never answers 5xx; every refusal is {detail: {status, message}}', async () => {
    await fc.assert(
      fc.asyncProperty(
        voiceSegment,
        fc.boolean(),
        queryString,
        rawBody,
        fc.constantFrom('application/json', 'text/plain', ''),
        async (voice, stream, query, body, type) => {
          const url = `${platform.publicUrl}/v1/text-to-speech/${voice}${stream ? '/stream' : ''}${query ? `?${query}` : ''}`;
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'xi-api-key': key, ...(type ? { 'content-type': type } : {}) },
            body,
          });
          const text = await res.text();
          expect(res.status).toBeLessThan(500);
          // Nothing here can be synthesised (no characters): every answer is a refusal.
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(JSON.parse(text)).toEqual(speechError);
        },
      ),
      { seed: SEED, numRuns: 150, endOnFailure: true },
    );
  }, 120_000);
});

// --- WebSocket --------------------------------------------------------------------------------

type Frame = { kind: 'text'; data: string } | { kind: 'binary'; data: Buffer };

/** A stream-input message: the protocol's fields mutated, any JSON, bytes that are not JSON, binary frames, oversized ones. */
const wsMessage: fc.Arbitrary<Frame> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .record({ text: speakable, flush: fc.boolean() })
      .map((m): Frame => ({ kind: 'text', data: JSON.stringify(m) })),
  },
  {
    weight: 4,
    arbitrary: fc
      .record(
        {
          text: fc.oneof(texts, anyJson),
          flush: fc.oneof(fc.boolean(), anyJson),
          try_trigger_generation: anyJson,
          voice_settings: settings,
          xi_api_key: fc.oneof(fc.constant('KEY'), fc.string({ maxLength: 20 }), anyJson),
          voice_id: fc.oneof(fc.constant(RACHEL), fc.string({ maxLength: 30 }), anyJson),
          generation_config: anyJson,
        },
        { requiredKeys: [] },
      )
      .map((m): Frame => ({ kind: 'text', data: JSON.stringify(m) })),
  },
  { weight: 1, arbitrary: anyJson.map((v): Frame => ({ kind: 'text', data: JSON.stringify(v) ?? 'null' })) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: 'binary', maxLength: 100 }).map((s): Frame => ({ kind: 'text', data: s })),
  },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 100 }).map((b): Frame => ({ kind: 'binary', data: Buffer.from(b) })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 60_000, max: 70_000 })
      .map((n): Frame => ({ kind: 'text', data: JSON.stringify({ text: 'y'.repeat(n) }) })),
  },
);

/** Close codes the speech WebSocket documents for a client's mistakes (docs/speech.md). */
const CLIENT_CLOSES = [1000, 1008, 1009, 1013];

interface WsOutcome {
  refusedUpgrade?: number;
  code?: number;
  texts: string[];
}

function session(path: string, headers: Record<string, string>, frames: Frame[]): Promise<WsOutcome> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${platform.publicUrl.replace(/^http/, 'ws')}${path}`, { headers });
    const texts: string[] = [];
    ws.on('unexpected-response', (_req, res) => {
      resolve({ refusedUpgrade: res.statusCode ?? 0, texts });
      res.resume();
      ws.terminate();
    });
    ws.on('error', () => undefined);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) texts.push(data.toString());
    });
    ws.on('close', (code) => resolve({ code, texts }));
    ws.on('open', () => {
      // The messages, then the end of input twice (a first '' may be the one that starts the stream).
      for (const f of [
        ...frames,
        { kind: 'text', data: '{"text":""}' } as Frame,
        { kind: 'text', data: '{"text":""}' } as Frame,
      ]) {
        if (ws.readyState !== ws.OPEN) return;
        ws.send(f.data, { binary: f.kind === 'binary' });
      }
    });
  });
}

describe('fuzz: stream-input messages', () => {
  it('closes with a documented code, never 1011 or abnormally; every error message is {detail: {status, message}}', async () => {
    await fc.assert(
      fc.asyncProperty(
        voiceSegment,
        queryString,
        fc.constantFrom<'header' | 'message' | 'none'>('header', 'message', 'none'),
        fc.array(wsMessage, { maxLength: 6 }),
        async (voice, query, keyIn, frames) => {
          const first: Frame[] =
            keyIn === 'message' ? [{ kind: 'text', data: JSON.stringify({ text: ' ', xi_api_key: key }) }] : [];
          const outcome = await session(
            `/v1/text-to-speech/${voice}/stream-input${query ? `?${query}` : ''}`,
            keyIn === 'header' ? { 'xi-api-key': key } : {},
            [
              ...first,
              ...frames.map((f) =>
                f.kind === 'text' ? { ...f, data: f.data.replace('"KEY"', JSON.stringify(key)) } : f,
              ),
            ],
          );
          if (outcome.refusedUpgrade !== undefined) {
            expect(outcome.refusedUpgrade).toBeGreaterThanOrEqual(400);
            expect(outcome.refusedUpgrade).toBeLessThan(500);
            return;
          }
          expect(CLIENT_CLOSES).toContain(outcome.code);
          for (const text of outcome.texts) {
            const message = JSON.parse(text) as Record<string, unknown>;
            if ('detail' in message) expect(message).toEqual(speechError);
          }
        },
      ),
      { seed: SEED, numRuns: 120, endOnFailure: true },
    );
  }, 120_000);
});

describe('after the fuzzing', () => {
  it('the gateway is still up and ready', async () => {
    expect(platform.gateways[0]!.process.exitCode).toBeNull();
    const ready = await fetch(`${platform.publicUrl}/readyz`);
    expect(ready.status).toBe(200);
  });
});
