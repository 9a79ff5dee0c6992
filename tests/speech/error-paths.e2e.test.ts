/**
 * Error paths of the speech API that no other test pinned down. The speech edge runs with no
 * worker at first (nothing answers: the frame timeout's 503 / WebSocket 1011), then with one worker
 * whose engine cannot run (`ESPEAK_BINARY` names no program: the engine-failure 502 / 1011); the
 * WebSocket's own limits (`text_too_long`, > 20 000 characters waiting, a malformed later message)
 * need no synthesis at all.
 */
import WebSocket from 'ws';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';
import { connectSession, errorOf, type Session } from './support/ws-session';

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const FRAME_TIMEOUT_MS = 1500;

let stack: SpeechStack;
beforeAll(async () => {
  stack = await startSpeechStack({ workers: 0, frameTimeoutMs: FRAME_TIMEOUT_MS });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

const connect = (path: string): Session => connectSession(`${stack.wsUrl}${path}`);

const init = () =>
  JSON.stringify({ text: ' ', voice_settings: { stability: 0.5, similarity_boost: 0.8 }, xi_api_key: stack.apiKey });

async function post(path: string, body: unknown) {
  return fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify(body),
  });
}

async function expectSpeechError(res: Response, status: number, detailStatus: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await res.json()).toEqual({ detail: { status: detailStatus, message: expect.any(String) } });
}

describe('stream-input limits that need no synthesis', () => {
  it('a message over 5 000 characters (under 64 KiB) is text_too_long, close 1008', async () => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input`);
    await s.opened;
    s.ws.send(init());
    s.ws.send(JSON.stringify({ text: 'a'.repeat(5001) }));
    expect((await s.closed).code).toBe(1008);
    expect(errorOf(s)?.status).toBe('text_too_long');
  });

  it('more than 20 000 characters waiting for synthesis is too_many_requests, close 1013', async () => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input`);
    await s.opened;
    s.ws.send(init());
    // The segment being synthesised no longer waits; seven messages leave more than 20 000 waiting.
    for (let i = 0; i < 7 && s.ws.readyState === WebSocket.OPEN; i++)
      s.ws.send(JSON.stringify({ text: 'a'.repeat(4500) }));
    expect((await s.closed).code).toBe(1013);
    expect(errorOf(s)).toEqual({ status: 'too_many_requests', message: expect.stringContaining('20000') });
  });

  it.each([
    ['not JSON', 'hello'],
    ['text not a string', JSON.stringify({ text: 42 })],
  ])('a later message that is %s is bad_request, close 1008', async (_name, message) => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input`);
    await s.opened;
    s.ws.send(init());
    s.ws.send(message);
    expect((await s.closed).code).toBe(1008);
    expect(errorOf(s)?.status).toBe('bad_request');
  });
});

describe('no worker answers within the frame timeout', () => {
  it('whole file: 503 error in the speech shape', async () => {
    await expectSpeechError(
      await post(`/v1/text-to-speech/${RACHEL}`, { text: 'Nobody will say this.' }),
      503,
      'error',
    );
  }, 20_000);

  it('/stream before its first byte: 503 error in the speech shape', async () => {
    await expectSpeechError(
      await post(`/v1/text-to-speech/${RACHEL}/stream`, { text: 'Nobody will say this.' }),
      503,
      'error',
    );
  }, 20_000);

  it('stream-input: error message, close 1011', async () => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input`);
    await s.opened;
    s.ws.send(init());
    s.ws.send(JSON.stringify({ text: 'Nobody will say this.', flush: true }));
    expect((await s.closed).code).toBe(1011);
    expect(errorOf(s)?.status).toBe('error');
    expect(s.binary).toHaveLength(0);
  }, 20_000);
});

describe('the engine fails on the worker', () => {
  beforeAll(async () => {
    await stack.startWorker({ ESPEAK_BINARY: '/nonexistent/espeak-ng' });
  }, 90_000);

  it('whole file: 502 error in the speech shape', async () => {
    await expectSpeechError(
      await post(`/v1/text-to-speech/${RACHEL}?output_format=pcm_16000`, { text: 'This cannot be spoken.' }),
      502,
      'error',
    );
  }, 20_000);

  it('/stream before its first byte: 502 error in the speech shape', async () => {
    await expectSpeechError(
      await post(`/v1/text-to-speech/${RACHEL}/stream?output_format=pcm_16000`, { text: 'This cannot be spoken.' }),
      502,
      'error',
    );
  }, 20_000);

  it('stream-input: error message, close 1011', async () => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input?output_format=pcm_16000`);
    await s.opened;
    s.ws.send(init());
    s.ws.send(JSON.stringify({ text: 'This cannot be spoken.', flush: true }));
    expect((await s.closed).code).toBe(1011);
    expect(errorOf(s)?.status).toBe('error');
  }, 20_000);
});
