import { PassThrough } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import { metricsRegistry } from '@platform/metrics';
import { createShutdownDrain } from '../src/routing/shutdown-drain';

/** `speech_requests_refused_total{reason="shutdown"}` now. */
async function shutdownRefusals(): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('speech_requests_refused_total')?.get();
  return metric?.values.find((v) => v.labels.reason === 'shutdown')?.value ?? 0;
}

/** A request and a response as the middleware sees them, recording what it answered. */
function exchange(path: string) {
  const headers: Record<string, string> = {};
  const answer: { status?: number; body?: unknown } = {};
  const closeListeners: (() => void)[] = [];
  const res = {
    headersSent: false,
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    status(code: number) {
      answer.status = code;
      return this;
    },
    json: (body: unknown) => void (answer.body = body),
    once: (event: string, listener: () => void) => void (event === 'close' && closeListeners.push(listener)),
  };
  let passed = false;
  const next: NextFunction = () => void (passed = true);
  return {
    req: { originalUrl: path } as Request,
    res: res as unknown as Response,
    next,
    headers,
    answer,
    passed: () => passed,
    close: () => closeListeners.forEach((l) => l()),
  };
}

describe('the gateway shutdown drain', () => {
  it('passes requests while open and counts them in flight; once closing, refuses new ones 503 with Retry-After in their interface shape', async () => {
    let sessions = 0;
    const drain = createShutdownDrain({ graceMs: 60_000, openSessions: () => sessions, pollMs: 1 });
    const inFlight = exchange('/v1/text-to-speech/x/stream');
    drain.requests(inFlight.req, inFlight.res, inFlight.next);
    expect(inFlight.passed()).toBe(true);
    sessions = 1;

    let result: string | undefined;
    const closed = drain.close().then((r) => (result = r));
    expect(drain.closing).toBe(true);
    const speech = exchange('/v1/text-to-speech/x/stream');
    drain.requests(speech.req, speech.res, speech.next);
    expect(speech.passed()).toBe(false);
    expect(speech.answer).toEqual({
      status: 503,
      body: { detail: { status: 'error', message: 'the gateway is shutting down; retry the request' } },
    });
    expect(speech.headers).toMatchObject({ 'retry-after': '1', connection: 'close' });
    // OpenAI's speech API, in OpenAI's shape, counted as a refused speech request.
    const refusedBefore = await shutdownRefusals();
    const openai = exchange('/v1/audio/speech');
    drain.requests(openai.req, openai.res, openai.next);
    expect(openai.answer).toEqual({
      status: 503,
      body: {
        error: {
          message: 'the gateway is shutting down; retry the request',
          type: 'server_error',
          code: 'shutting_down',
          param: null,
        },
      },
    });
    expect(await shutdownRefusals()).toBe(refusedBefore + 1);
    const content = exchange('/api/v1/posts');
    drain.requests(content.req, content.res, content.next);
    expect(content.answer.status).toBe(503);
    expect(content.answer.body).toEqual({
      error: { code: 503, message: 'the gateway is shutting down; retry the request' },
    });

    // Drained only once the request in flight and the session have both ended.
    inFlight.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(result).toBeUndefined();
    sessions = 0;
    await closed;
    expect(result).toBe('drained');
  });

  it('ends the wait when the grace is over, whatever is still open', async () => {
    const drain = createShutdownDrain({ graceMs: 30, openSessions: () => 1, pollMs: 1 });
    await expect(drain.close()).resolves.toBe('grace over');
  });

  it('refuses WebSocket upgrades with HTTP 503 only once closing', async () => {
    const drain = createShutdownDrain({ graceMs: 0, openSessions: () => 0 });
    const socket = new PassThrough();
    expect(drain.refuseUpgrade(socket)).toBe(false);
    await drain.close();
    const written: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => written.push(chunk));
    expect(drain.refuseUpgrade(socket)).toBe(true);
    await new Promise((resolve) => socket.once('end', resolve));
    const text = Buffer.concat(written).toString();
    expect(text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(text).toContain('Retry-After: 1\r\n');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
      detail: { status: 'error', message: 'the gateway is shutting down; retry the request' },
    });
  });
});
