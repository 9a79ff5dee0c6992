import { OPENAI_VOICES } from '@platform/contracts';
import { DEFAULT_MODEL_ID } from '@platform/speech-engine';
import { eventually } from '@platform/testing';
import { probe } from '../speech/support/ffmpeg-decode';
import { connectSession } from '../speech/support/ws-session';
import { audioBytes, OPENAI_SDK_VERSION, stepResult, type PythonAudio, type PythonStep } from './python-sdk';
import { startSdkPlatform, type SdkCaller, type SdkPlatform } from './sdk-platform';

/**
 * OpenAI's Python SDK (`openai`, pinned in requirements.txt) against the platform's `POST
 * /v1/audio/speech` (docs/speech.md, "OpenAI speech API"), pointed at it with `base_url=<gateway>/v1`
 * and an API key of the platform: mp3, streamed pcm, wav and SSE; an unknown voice, a format not made
 * here and a bad key raise the SDK's error classes with OpenAI's error body; every generation is in
 * the account's history and charged as `/v1/text-to-speech/{voice_id}/stream` charges it.
 */
const TEXT = 'Speech through the OpenAI client, on this platform.';
const CHARACTERS = [...TEXT].length;
/** 24 kHz, 16-bit mono: OpenAI's `pcm`. */
const PCM_BYTES_PER_SECOND = 24_000 * 2;

/** What tests/sdk/python/openai_refused.py reports for a refused call. */
interface Refused {
  error: string | null;
  status_code: number;
  body: unknown;
  retry_after: string | null;
}

let sdk: SdkPlatform;
let me: SdkCaller;
let steps: Record<string, PythonStep>;

beforeAll(async () => {
  sdk = await startSdkPlatform({ free: { character_limit: 100_000 } });
  me = await sdk.newCaller('OpenAI SDK');
  steps = await me.python('openai_speech', { input: TEXT, voice: 'alloy', model: 'tts-1' });
}, 600_000);

afterAll(async () => {
  await sdk?.stop();
}, 30_000);

describe(`OpenAI's Python SDK (openai ${OPENAI_SDK_VERSION}) on POST /v1/audio/speech`, () => {
  it('audio.speech.create: mp3 by default, bytes that parse as MP3', async () => {
    const mp3 = audioBytes(stepResult<PythonAudio>(steps, 'mp3'));
    expect(await probe('mp3_44100_128', mp3)).toMatchObject({ codecName: 'mp3', sampleRate: 44100, channels: 1 });
  });

  it('with_streaming_response pcm: raw 24 kHz 16-bit audio of the text’s duration', () => {
    const pcm = stepResult<PythonAudio & { content_type: string }>(steps, 'pcm_streamed');
    expect(pcm.bytes % 2).toBe(0);
    const seconds = pcm.bytes / PCM_BYTES_PER_SECOND;
    // About 50 characters of English: a few seconds at any speaking rate.
    expect(seconds).toBeGreaterThan(1.5);
    expect(seconds).toBeLessThan(10);
    expect(pcm.content_type).toMatch(/^audio\/pcm;rate=24000$/);
  });

  it('wav: a RIFF/WAVE file at 24 kHz, mono', async () => {
    const wav = audioBytes(stepResult<PythonAudio>(steps, 'wav'));
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(await probe('wav_24000', wav)).toMatchObject({ codecName: 'pcm_s16le', sampleRate: 24000, channels: 1 });
  });

  it('stream_format sse: speech.audio.delta events with the same audio as the bytes, then speech.audio.done', () => {
    const sse = stepResult<{ types: string[]; done: unknown; pcm_bytes: number; content_type: string }>(steps, 'sse');
    expect(sse.content_type).toBe('text/event-stream');
    expect(sse.types.at(-1)).toBe('speech.audio.done');
    expect(sse.types.slice(0, -1).every((t) => t === 'speech.audio.delta')).toBe(true);
    expect(sse.types.length).toBeGreaterThan(1);
    expect(sse.done).toEqual({
      type: 'speech.audio.done',
      usage: { input_tokens: CHARACTERS, output_tokens: 0, total_tokens: CHARACTERS },
    });
    const streamed = stepResult<PythonAudio>(steps, 'pcm_streamed').bytes;
    expect(Math.abs(sse.pcm_bytes - streamed)).toBeLessThan(streamed * 0.05);
  });

  it('an unknown voice is the SDK’s NotFoundError (404) with OpenAI’s error body', () => {
    expect(stepResult(steps, 'unknown_voice')).toMatchObject({
      error: 'NotFoundError',
      status_code: 404,
      body: { type: 'invalid_request_error', code: 'voice_not_found', param: 'voice' },
    });
  });

  it('a format not made here (aac) is BadRequestError (400), naming response_format', () => {
    expect(stepResult(steps, 'aac')).toMatchObject({
      error: 'BadRequestError',
      status_code: 400,
      body: { type: 'invalid_request_error', code: 'unsupported_response_format', param: 'response_format' },
    });
  });

  it('a key the platform does not know is AuthenticationError (401) with OpenAI’s error body', () => {
    expect(stepResult(steps, 'bad_key')).toMatchObject({
      error: 'AuthenticationError',
      status_code: 401,
      body: { type: 'authentication_error', code: 'invalid_api_key' },
    });
  });

  it('every generation is in the account’s history and charged its characters, as /stream charges them', async () => {
    const generations = ['mp3', 'pcm_streamed', 'wav', 'sse'].length;
    await eventually(async () => {
      const { history } = await me.client.history.list({ pageSize: 20 });
      const items = history.filter((h) => h.text === TEXT && h.state === 'complete');
      return items.length === generations;
    }, 30_000);
    const { history } = await me.client.history.list({ pageSize: 20 });
    expect(history).toHaveLength(generations);
    for (const item of history)
      expect(item).toMatchObject({
        voiceId: OPENAI_VOICES.alloy,
        modelId: DEFAULT_MODEL_ID,
        characterCountChangeTo: expect.any(Number) as number,
      });
    // The same text on /stream costs the same characters: the charge of each OpenAI call is the /stream charge.
    const before = (await me.client.user.subscription.get()).characterCount;
    expect(before).toBe(generations * CHARACTERS);
    const res = await fetch(`${sdk.platform.publicUrl}/v1/text-to-speech/${OPENAI_VOICES.alloy}/stream`, {
      method: 'POST',
      headers: { 'xi-api-key': me.key, 'content-type': 'application/json' },
      body: JSON.stringify({ text: TEXT, model_id: DEFAULT_MODEL_ID }),
    });
    expect({ status: res.status, text: res.status === 200 ? '' : await res.text() }).toEqual({ status: 200, text: '' });
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    await eventually(
      async () => (await me.client.user.subscription.get()).characterCount === before + CHARACTERS,
      30_000,
    );
  });
});

/**
 * The refusals a client must back off from, as OpenAI's SDK sees them (`max_retries=0`, so the SDK
 * does not retry them itself): on a platform whose free plan allows one request at a time, a call
 * while a speech WebSocket of the account holds that slot is `RateLimitError` (429, OpenAI's body,
 * `Retry-After`); with no synthesis worker running, a call waits `SPEECH_QUEUE_WAIT_MS` for one and
 * is `InternalServerError` (503, `Retry-After`), nothing charged.
 */
describe(`OpenAI's Python SDK (openai ${OPENAI_SDK_VERSION}): 429 and 503 with Retry-After`, () => {
  const call = { input: TEXT, voice: 'alloy', model: 'tts-1' };
  let limited: SdkPlatform;
  let caller: SdkCaller;

  beforeAll(async () => {
    limited = await startSdkPlatform({ free: { character_limit: 100_000 } }, { free: { rps: 1000, concurrency: 1 } });
    caller = await limited.newCaller('OpenAI SDK refusals');
  }, 600_000);

  afterAll(async () => {
    await limited?.stop();
  }, 30_000);

  it('the plan’s concurrency taken (a stream-input socket open): RateLimitError, 429, OpenAI’s body, Retry-After', async () => {
    const socket = connectSession(
      `${limited.platform.publicUrl.replace(/^http/, 'ws')}/v1/text-to-speech/${OPENAI_VOICES.alloy}/stream-input`,
      { 'xi-api-key': caller.key },
    );
    try {
      // The upgrade carried the key: the socket holds the account's one slot from its open.
      await socket.opened;
      const refused = stepResult<Refused>(await caller.python('openai_refused', call), 'create');
      expect(refused).toMatchObject({
        error: 'RateLimitError',
        status_code: 429,
        body: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: expect.any(String) as string },
      });
      expect(Number(refused.retry_after)).toBeGreaterThanOrEqual(1);
    } finally {
      socket.ws.close();
      await socket.closed;
    }
  }, 240_000);

  it('no synthesis worker: InternalServerError, 503, OpenAI’s body, Retry-After; nothing charged', async () => {
    await Promise.all(limited.platform.workers.map((w) => w.stop()));
    // The closed socket's slot is free again once a plain request is admitted.
    await eventually(
      async () => (await fetch(`${limited.platform.publicUrl}/v1/user`, { headers: { 'xi-api-key': caller.key } })).ok,
      30_000,
    );
    const refused = stepResult<Refused>(await caller.python('openai_refused', call), 'create');
    expect(refused).toMatchObject({
      error: 'InternalServerError',
      is_api_status_error: true,
      status_code: 503,
      body: { type: 'server_error', message: expect.any(String) as string },
    });
    expect(Number(refused.retry_after)).toBeGreaterThanOrEqual(1);
    expect((await caller.client.user.subscription.get()).characterCount).toBe(0);
    expect((await caller.client.history.list({ pageSize: 5 })).history).toEqual([]);
  }, 240_000);
});
