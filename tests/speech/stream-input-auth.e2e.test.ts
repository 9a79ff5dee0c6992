import { untilClock } from '@platform/testing';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';
import { connectSession, errorOf } from './support/ws-session';

/**
 * stream-input takes the API key in the first message (the hosted API's protocol), but a connection
 * that has not authenticated is closed after `SPEECH_WS_AUTH_TIMEOUT_MS`, whatever its idle timeout.
 * A short deadline here; no synthesis worker is needed.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const AUTH_TIMEOUT_MS = 400;

let stack: SpeechStack;
beforeAll(async () => {
  stack = await startSpeechStack({ workers: 0, wsAuthTimeoutMs: AUTH_TIMEOUT_MS });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

const path = `/v1/text-to-speech/${RACHEL}/stream-input?inactivity_timeout=180`;

describe('stream-input: unauthenticated connections get a short deadline', () => {
  it('a connection that never sends a key is closed 1008 at the auth deadline, not the 180 s idle timeout', async () => {
    const s = connectSession(`${stack.wsUrl}${path}`);
    await s.opened;
    const opened = Date.now();
    const closed = await s.closed;
    expect(closed.code).toBe(1008);
    expect(errorOf(s)).toEqual({
      status: 'unauthorized',
      message: `no API key within ${AUTH_TIMEOUT_MS / 1000} s of connecting`,
    });
    expect(Date.now() - opened).toBeGreaterThanOrEqual(AUTH_TIMEOUT_MS - 50);
    expect(Date.now() - opened).toBeLessThan(10_000);
  }, 20_000);

  it('a connection that keeps sending messages without a key is closed too', async () => {
    const s = connectSession(`${stack.wsUrl}${path}`);
    await s.opened;
    // Text frames that are not a first message the protocol accepts are refused at once.
    s.ws.send(JSON.stringify({ text: ' ' }));
    expect((await s.closed).code).toBe(1008);
    expect(errorOf(s)?.status).toBe('unauthorized');
  });

  it.each([
    ['the first message', {}, true],
    ['the xi-api-key header', { 'xi-api-key': 'KEY' }, false],
  ])(
    'a key in %s lifts the deadline: the session is still open after it and ends normally',
    async (_where, headers, inMessage) => {
      const key = stack.apiKey;
      const s = connectSession(
        `${stack.wsUrl}${path}`,
        Object.fromEntries(Object.entries(headers).map(([k]) => [k, key])),
      );
      await s.opened;
      const opened = Date.now();
      s.ws.send(JSON.stringify({ text: ' ', ...(inMessage ? { xi_api_key: key } : {}) }));
      await untilClock(opened + AUTH_TIMEOUT_MS * 3);
      expect(s.ws.readyState).toBe(s.ws.OPEN);
      s.ws.send(JSON.stringify({ text: '' }));
      expect(await s.closed).toEqual({ code: 1000, reason: 'done' });
      expect(s.texts.map((t) => JSON.parse(t) as unknown)).toEqual([{ isFinal: true }]);
    },
    20_000,
  );
});
