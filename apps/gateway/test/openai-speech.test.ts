import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import {
  OPENAI_RESPONSE_FORMATS,
  OPENAI_SPEECH_MODELS,
  OPENAI_VOICES,
  openAiErrorBody,
  openAiSpeechEvent,
} from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import type { Identity } from '@platform/identity';
import { createLogger } from '@platform/logger';
import { MODELS, NEURAL_MODEL_ID, SPEED_RANGE, findPremadeVoice, modelCatalogue } from '@platform/speech-engine';
import { sendEdgeError } from '../src/routing/edge-errors';
import { surfaceOf } from '../src/routing/path-guard';
import { openAiBodyOf, OpenAiRequestError, sendOpenAiError } from '../src/speech/openai/openai-errors';
import { openAiRoutes } from '../src/speech/openai/openai-routes';
import { sseFraming } from '../src/speech/openai/sse-framing';
import type { JobRunner } from '../src/speech/tts/job-runner';
import { readOpenAiSpeech } from '../src/speech/openai/speech-request';
import { pipelineError } from '../src/speech/tts/synthesis';

/** OpenAI's speech API (`POST /v1/audio/speech`): the mapping onto our request, and every error in OpenAI's shape. */
const ESPEAK = MODELS[0]!.model_id;
const NEURAL = modelCatalogue({ neural: true });
const ESPEAK_ONLY = modelCatalogue({ neural: false });
const body = (extra: Record<string, unknown> = {}) => ({
  model: 'tts-1',
  voice: 'alloy',
  input: 'Hello there.',
  ...extra,
});

/** What `read` threw, in OpenAI's shape (as the route answers it). */
function refusal(input: unknown, maxChars = 5000): { status: number; body: unknown } {
  try {
    readOpenAiSpeech(input, maxChars, NEURAL);
  } catch (err) {
    const known = pipelineError(err);
    return { status: known.httpStatus, body: openAiBodyOf(known) };
  }
  throw new Error('the request was accepted');
}

function fakeResponse() {
  const sent: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
  const res = {
    headersSent: false,
    setHeader(name: string, value: string) {
      sent.headers[name.toLowerCase()] = value;
      return res;
    },
    status(status: number) {
      sent.status = status;
      return res;
    },
    json(b: unknown) {
      sent.body = b;
      return res;
    },
  };
  return { res: res as unknown as Response, sent };
}

describe('OpenAI speech request mapping', () => {
  it('tts-1 runs the fastest model (eSpeak NG); tts-1-hd and gpt-4o-mini-tts the neural one where installed', () => {
    expect(readOpenAiSpeech(body(), 5000, NEURAL).request.model.model_id).toBe(ESPEAK);
    for (const model of ['tts-1-hd', 'gpt-4o-mini-tts', 'gpt-4o-mini-tts-2025-12-15']) {
      const read = readOpenAiSpeech(body({ model }), 5000, NEURAL);
      expect({ model, id: read.request.model.model_id, follows: read.request.modelFollowsLanguage }).toEqual({
        model,
        id: NEURAL_MODEL_ID,
        follows: true,
      });
      expect(readOpenAiSpeech(body({ model }), 5000, ESPEAK_ONLY).request.model.model_id).toBe(ESPEAK);
    }
    expect(Object.keys(OPENAI_SPEECH_MODELS).sort()).toEqual([
      'gpt-4o-mini-tts',
      'gpt-4o-mini-tts-2025-03-20',
      'gpt-4o-mini-tts-2025-12-15',
      'tts-1',
      'tts-1-hd',
    ]);
  });

  it('our own model ids are taken as themselves; an unknown model is 400 model_not_found on param model', () => {
    expect(readOpenAiSpeech(body({ model: NEURAL_MODEL_ID }), 5000, NEURAL).request.model.model_id).toBe(
      NEURAL_MODEL_ID,
    );
    expect(refusal(body({ model: 'whisper-1' }))).toEqual({
      status: 400,
      body: {
        error: {
          message: expect.stringContaining('whisper-1') as string,
          type: 'invalid_request_error',
          code: 'model_not_found',
          param: 'model',
        },
      },
    });
  });

  it('every OpenAI voice is an English premade voice; our voice ids are taken as they are', () => {
    for (const [name, voiceId] of Object.entries(OPENAI_VOICES)) {
      expect({ name, voiceId: readOpenAiSpeech(body({ voice: name }), 5000, NEURAL).voiceId }).toEqual({
        name,
        voiceId,
      });
      expect({ name, language: findPremadeVoice(voiceId)?.labels.language }).toEqual({ name, language: 'en' });
    }
    expect(readOpenAiSpeech(body({ voice: 'pNInz6obpgDQGcFmaJgB' }), 5000, NEURAL).voiceId).toBe(
      'pNInz6obpgDQGcFmaJgB',
    );
  });

  it('OpenAI\'s custom-voice reference {"id"} names a voice as its id does; thirteen OpenAI voices', () => {
    expect(readOpenAiSpeech(body({ voice: { id: 'pNInz6obpgDQGcFmaJgB' } }), 5000, NEURAL).voiceId).toBe(
      'pNInz6obpgDQGcFmaJgB',
    );
    expect(readOpenAiSpeech(body({ voice: { id: 'nova' } }), 5000, NEURAL).voiceId).toBe(OPENAI_VOICES.nova);
    for (const voice of ['', {}, { id: 3 }, 7])
      expect(refusal(body({ voice }))).toMatchObject({
        status: 400,
        body: { error: { type: 'invalid_request_error', code: 'invalid_value', param: 'voice' } },
      });
    expect(Object.keys(OPENAI_VOICES)).toHaveLength(13);
  });

  it('a voice no voice can have is 404 voice_not_found on param voice', () => {
    expect(refusal(body({ voice: 'no such voice!' }))).toMatchObject({
      status: 404,
      body: { error: { type: 'invalid_request_error', code: 'voice_not_found', param: 'voice' } },
    });
  });

  it('response formats map to our codecs: mp3 by default, pcm and wav at 24 kHz; aac and flac are a clear 400', () => {
    const format = (response_format?: string) =>
      readOpenAiSpeech(body(response_format ? { response_format } : {}), 5000, NEURAL).request.format;
    expect(format().id).toBe('mp3_44100_128');
    expect(format('pcm')).toMatchObject({ id: 'pcm_24000', codec: 'pcm', sampleRate: 24000 });
    expect(format('wav')).toMatchObject({ id: 'wav_24000', codec: 'wav', sampleRate: 24000 });
    expect(format('opus')).toMatchObject({ codec: 'opus' });
    for (const response_format of ['aac', 'flac'])
      expect(refusal(body({ response_format }))).toMatchObject({
        status: 400,
        body: {
          error: { type: 'invalid_request_error', code: 'unsupported_response_format', param: 'response_format' },
        },
      });
    expect(refusal(body({ response_format: 'ogg' }))).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_value', param: 'response_format' } },
    });
    expect(Object.keys(OPENAI_RESPONSE_FORMATS).sort()).toEqual(['aac', 'flac', 'mp3', 'opus', 'pcm', 'wav']);
  });

  it("speed 0.25-4 is clamped to the engine's range; outside OpenAI's range is 400 on param speed", () => {
    const speed = (s: number) =>
      (readOpenAiSpeech(body({ speed: s }), 5000, NEURAL).request.rawSettings as { speed: number }).speed;
    expect([speed(0.25), speed(1), speed(1.1), speed(4)]).toEqual([SPEED_RANGE.min, 1, 1.1, SPEED_RANGE.max]);
    expect(refusal(body({ speed: 4.5 }))).toMatchObject({ status: 400, body: { error: { param: 'speed' } } });
    expect(refusal(body({ speed: 'fast' }))).toMatchObject({ status: 400, body: { error: { param: 'speed' } } });
  });

  it('input: at most 4096 characters, or the platform limit when lower; empty or missing is 400 on param input', () => {
    expect(readOpenAiSpeech(body({ input: 'a'.repeat(4096) }), 5000, NEURAL).request.text).toHaveLength(4096);
    expect(refusal(body({ input: 'a'.repeat(4097) }))).toMatchObject({
      status: 400,
      body: { error: { code: 'text_too_long', param: 'input', message: expect.stringContaining('4096') as string } },
    });
    expect(refusal(body({ input: 'a'.repeat(101) }), 100)).toMatchObject({
      body: { error: { code: 'text_too_long', param: 'input' } },
    });
    expect(refusal(body({ input: '  ' }))).toMatchObject({ status: 400, body: { error: { param: 'input' } } });
    expect(refusal({ model: 'tts-1', voice: 'alloy' })).toMatchObject({
      status: 400,
      body: { error: { param: 'input' } },
    });
  });

  it('instructions are accepted (and change nothing); stream_format is audio by default, sse on request', () => {
    const plain = readOpenAiSpeech(body(), 5000, NEURAL);
    const instructed = readOpenAiSpeech(body({ instructions: 'Speak cheerfully.' }), 5000, NEURAL);
    expect(instructed).toEqual(plain);
    expect(plain.streamFormat).toBe('audio');
    expect(readOpenAiSpeech(body({ stream_format: 'sse' }), 5000, NEURAL).streamFormat).toBe('sse');
    expect(refusal(body({ stream_format: 'ws' }))).toMatchObject({ body: { error: { param: 'stream_format' } } });
    expect(refusal(body({ instructions: 'a'.repeat(4097) }))).toMatchObject({
      status: 400,
      body: { error: { param: 'instructions' } },
    });
  });

  it('a body that is not an object is 400 with no param', () => {
    for (const input of [null, 'text', [1]])
      expect(refusal(input)).toEqual({
        status: 400,
        body: {
          error: {
            message: 'request body must be a JSON object',
            type: 'invalid_request_error',
            code: 'invalid_value',
            param: null,
          },
        },
      });
  });
});

describe('OpenAI error shape', () => {
  it('the pipeline’s refusals keep their status: 429 and 503 with Retry-After, quota and auth errors typed by status', () => {
    const cases: [SpeechError, number, string, string | null][] = [
      [
        new SpeechError(429, 'too_many_requests', 'slow down', { retryAfterSeconds: 3 }),
        429,
        'rate_limit_error',
        'rate_limit_exceeded',
      ],
      [new SpeechError(429, 'quota_exceeded', 'no characters left'), 429, 'rate_limit_error', 'quota_exceeded'],
      [new SpeechError(401, 'invalid_api_key', 'Invalid API key.'), 401, 'authentication_error', 'invalid_api_key'],
      [new SpeechError(403, 'subscription_required', 'pro only'), 403, 'permission_error', 'subscription_required'],
      [new SpeechError(503, 'error', 'busy', { retryAfterSeconds: 2 }), 503, 'server_error', null],
    ];
    for (const [err, status, type, code] of cases) {
      const { res, sent } = fakeResponse();
      sendOpenAiError(res, err);
      expect(sent.status).toBe(status);
      expect(openAiErrorBody.parse(sent.body)).toMatchObject({ error: { message: err.message, type, code } });
      expect(sent.headers['retry-after']).toBe(
        err.retryAfterSeconds === undefined ? undefined : String(err.retryAfterSeconds),
      );
    }
  });

  it('refusals at the edge (authentication, limits) on /v1/audio are in OpenAI’s shape, not the speech API’s', () => {
    expect(surfaceOf('/v1/audio/speech')).toBe('openai');
    expect(surfaceOf('/v1/voices')).toBe('speech');
    expect(surfaceOf('/v1/text-to-speech/x')).toBe('speech');
    const { res, sent } = fakeResponse();
    sendEdgeError(res, 'openai', {
      status: 429,
      code: 'rate_limited',
      message: 'Too many requests',
      headers: { 'retry-after': '1' },
    });
    expect(sent).toEqual({
      status: 429,
      headers: { 'retry-after': '1' },
      body: {
        error: { message: 'Too many requests', type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null },
      },
    });
    const missing = fakeResponse();
    sendEdgeError(missing.res, 'openai', {
      status: 401,
      code: 'missing_credentials',
      message: 'An API key is required',
    });
    expect(missing.sent.body).toEqual({
      error: { message: 'An API key is required', type: 'authentication_error', code: 'missing_api_key', param: null },
    });
  });

  it('a contract refusal is an OpenAiRequestError, a SpeechError the pipeline passes through', () => {
    const err = new OpenAiRequestError('invalid_value', 'speed', 'bad speed');
    expect(pipelineError(err)).toBe(err);
  });
});

describe('stream_format sse', () => {
  it('each piece of audio is a speech.audio.delta event in base64; the end a speech.audio.done with the characters', () => {
    const framing = sseFraming(12);
    expect(framing.contentType).toBe('text/event-stream');
    const delta = String(framing.piece(Buffer.from([1, 2, 3])));
    const done = framing.end();
    const data = (event: string) => {
      expect(event).toMatch(/^data: .*\n\n$/);
      return openAiSpeechEvent.parse(JSON.parse(event.slice('data: '.length)));
    };
    expect(data(delta)).toEqual({ type: 'speech.audio.delta', audio: Buffer.from([1, 2, 3]).toString('base64') });
    expect(data(done)).toEqual({
      type: 'speech.audio.done',
      usage: { input_tokens: 12, output_tokens: 0, total_tokens: 12 },
    });
  });
});

describe('POST /v1/audio/speech refusals before any synthesis', () => {
  // The runner and hooks are never reached: each request here is refused first.
  const routes = openAiRoutes({
    runner: {} as JobRunner,
    hooks: {},
    catalogue: NEURAL,
    maxTextChars: 5000,
    writeStallTimeoutMs: 1000,
    logger: createLogger('openai-speech-test', 'silent'),
  });
  const writer: Identity = { sub: 'acct_1', roles: ['USER'], scope: 'speech:read speech:write', method: 'api_key' };
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.use((req, _res, next) => {
      if (req.headers['x-test-caller'] === 'writer')
        (req as express.Request & { identity?: Identity }).identity = writer;
      next();
    });
    app.use('/v1/audio', routes);
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/audio`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const post = async (body: string, caller = 'writer') => {
    const res = await fetch(`${base}/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test-caller': caller },
      body,
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  it('a body that is not JSON is 400, one over 64 kB 413, both in OpenAI’s shape', async () => {
    expect(await post('{"model":')).toEqual({
      status: 400,
      body: {
        error: {
          message: 'request body must be valid JSON',
          type: 'invalid_request_error',
          code: 'bad_request',
          param: null,
        },
      },
    });
    expect(await post(JSON.stringify(body({ input: 'a'.repeat(70 * 1024) })))).toMatchObject({
      status: 413,
      body: { error: { type: 'invalid_request_error', code: 'text_too_long' } },
    });
  });

  it('a caller without an account is 401 authentication_error; aac is 400 before any job', async () => {
    expect(await post(JSON.stringify(body()), 'nobody')).toMatchObject({
      status: 401,
      body: { error: { type: 'authentication_error', code: 'unauthorized' } },
    });
    expect(await post(JSON.stringify(body({ response_format: 'flac' })))).toMatchObject({
      status: 400,
      body: { error: { code: 'unsupported_response_format', param: 'response_format' } },
    });
  });
});
