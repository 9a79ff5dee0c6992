import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { IDENTITY_HEADER, signIdentity } from '@platform/identity';
import { eventually, freePort, stackEnv, startApp, uniqueName, type RunningApp } from '@platform/testing';
import SERVICES from '../../deploy/helm/platform/services.json';

/** Every app of the service manifest, the apps `npm start` runs and the Helm chart deploys. */
const APPS = SERVICES.map((service) => service.name);
const INTERNAL_SECRET = 'e2e-internal-secret-e2e-internal-secret';

function baseEnv(): Record<string, string> {
  const stack = stackEnv();
  return {
    ...stack,
    INTERNAL_SECRET,
    MONGO_DB: uniqueName('boot'),
  };
}

describe.each(APPS)('%s boots and stops', (app) => {
  it('reaches ready, answers /healthz, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const running = await startApp({ app, env: { ...baseEnv(), PORT: String(port) }, readyTimeoutMs: 60_000 });
    const health = await fetch(`${running.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${running.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await running.stop('SIGTERM')).toBe(0);
    // Logs are JSON lines.
    const firstLine =
      running
        .output()
        .split('\n')
        .find((line) => line.trim().length > 0) ?? '';
    expect(JSON.parse(firstLine)).toMatchObject({ service: app });
  }, 90_000);
});

describe('bad configuration', () => {
  it.each(APPS.filter((a) => a !== 'gateway'))(
    '%s exits non-zero naming a malformed MONGO_URL',
    async (app) => {
      const port = await freePort();
      const running = await startApp({
        app,
        env: { ...baseEnv(), PORT: String(port), MONGO_URL: 'not-a-mongo-url' },
        waitReady: false,
      });
      const code = await running.exited;
      expect(code).not.toBe(0);
      expect(running.output()).toMatch(/MONGO_URL: malformed/);
    },
    30_000,
  );

  it('gateway exits non-zero naming a missing REDIS_URL', async () => {
    const port = await freePort();
    const { REDIS_URL: _omitted, ...env } = baseEnv();
    const running = await startApp({ app: 'gateway', env: { ...env, PORT: String(port) }, waitReady: false });
    expect(await running.exited).not.toBe(0);
    expect(running.output()).toMatch(/REDIS_URL: missing/);
  }, 30_000);
});

/** A fake upstream that holds the first request it gets until the test answers it. */
interface HeldUpstream {
  url: string;
  /** Resolves when a request has arrived: the app is now waiting on it. */
  arrived: Promise<string>;
  answer(status: number, body: unknown): void;
  close(): Promise<void>;
}

async function heldUpstream(): Promise<HeldUpstream> {
  let pending: http.ServerResponse | undefined;
  let arrive: (path: string) => void = () => undefined;
  const arrived = new Promise<string>((resolve) => (arrive = resolve));
  const server = http.createServer((req, res) => {
    pending = res;
    arrive(req.url ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    answer(status, body) {
      pending?.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Sends SIGTERM and waits until the app no longer accepts connections (it is draining), while the
 * request in flight is still unanswered; checks the process has not exited meanwhile. That it
 * keeps running until the request is answered is shown by the caller: it answers the upstream
 * only after this, and the request in flight gets that answer (no fixed wait here).
 */
async function terminateAndAwaitDrain(running: RunningApp): Promise<{ exit: Promise<number | null> }> {
  let exited = false;
  void running.exited.then(() => (exited = true));
  const exit = running.stop('SIGTERM');
  await eventually(
    () =>
      fetch(`${running.url}/healthz`).then(
        () => false,
        () => true,
      ),
    20_000,
  ).catch(() => {
    throw new Error(`still accepting connections 20 s after SIGTERM:\n${running.output()}`);
  });
  // Closed for new connections, yet still running: it is waiting for the request in flight.
  expect(exited).toBe(false);
  // Wrapped: an async function returning the promise itself would wait for the exit.
  return { exit };
}

describe('SIGTERM drains requests in flight', () => {
  it('gateway: a request waiting on a slow upstream when SIGTERM arrives still gets its answer; exit 0', async () => {
    const content = await heldUpstream();
    try {
      const running = await startApp({
        app: 'gateway',
        env: {
          ...baseEnv(),
          PORT: String(await freePort()),
          CONTENT_URL: content.url,
          AUTH_URL: `http://127.0.0.1:${await freePort()}`,
          KAFKA_TOPIC_PREFIX: `${uniqueName('drain')}.`,
          RATE_LIMIT_PREFIX: uniqueName('drain'),
          UPSTREAM_TIMEOUT_MS: '30000',
        },
        readyTimeoutMs: 60_000,
      });
      const inFlight = fetch(`${running.url}/api/v1/posts`).then(async (res) => ({
        status: res.status,
        body: await res.json(),
      }));
      expect(await content.arrived).toBe('/api/v1/posts');
      // The gateway keeps its listener through its shutdown grace (docs/gateway.md, "Shutdown"):
      // not ready, and a new request is refused 503 in its interface's shape while the first waits.
      let exited = false;
      void running.exited.then(() => (exited = true));
      const exit = running.stop('SIGTERM');
      await eventually(async () => (await fetch(`${running.url}/readyz`)).status === 503, 20_000);
      const refused = await fetch(`${running.url}/api/v1/posts`);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(503);
      expect(exited).toBe(false);
      content.answer(200, { data: [], meta: { total: 0 } });
      expect(await inFlight).toEqual({ status: 200, body: { data: [], meta: { total: 0 } } });
      expect(await exit).toBe(0);
    } finally {
      await content.close();
    }
  }, 90_000);

  it('content: a login waiting on auth when SIGTERM arrives still gets its answer; exit 0', async () => {
    const auth = await heldUpstream();
    try {
      const env = { ...baseEnv(), PORT: String(await freePort()), AUTH_URL: auth.url, OUTBOX_RELAY: 'false' };
      const running = await startApp({ app: 'content', env, readyTimeoutMs: 60_000 });
      const identity = await signIdentity({ roles: [], scope: '', method: 'anonymous' }, INTERNAL_SECRET);
      const inFlight = fetch(`${running.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [IDENTITY_HEADER]: identity },
        body: JSON.stringify({ email: 'drain@example.com', password: 'correct horse battery staple' }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as unknown }));
      expect(await auth.arrived).toBe('/internal/login');
      const { exit } = await terminateAndAwaitDrain(running);
      auth.answer(401, { error: 'invalid_grant', error_description: 'email or password is wrong' });
      const answered = await inFlight;
      expect(answered.status).toBe(401);
      expect(answered.body).toEqual(expect.objectContaining({ error: expect.anything() }));
      expect(await exit).toBe(0);
    } finally {
      await auth.close();
    }
  }, 90_000);

  it('auth: a request whose body is still arriving when SIGTERM arrives still gets its answer; exit 0', async () => {
    const running = await startApp({
      app: 'auth',
      env: { ...baseEnv(), PORT: String(await freePort()) },
      readyTimeoutMs: 60_000,
    });
    const body = new URLSearchParams({ grant_type: 'client_credentials' }).toString();
    // `Expect: 100-continue`: the server answers 100 once it has parsed the request and handed it to
    // the app, so the test knows the request is in flight; the body follows after SIGTERM.
    const req = http.request(`${running.url}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(Buffer.byteLength(body)),
        authorization: `Basic ${Buffer.from('no-such-client:secret').toString('base64')}`,
        expect: '100-continue',
      },
    });
    const continued = new Promise<void>((resolve) => req.once('continue', () => resolve()));
    const answered = new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      req.once('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
      });
      req.once('error', reject);
    });
    req.flushHeaders();
    await continued;
    const { exit } = await terminateAndAwaitDrain(running);
    req.end(body);
    const { status, body: answer } = await answered;
    expect(status).toBe(401);
    expect(answer).toEqual(expect.objectContaining({ error: 'invalid_client' }));
    expect(await exit).toBe(0);
  }, 90_000);
});
