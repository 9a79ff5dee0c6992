import { freePort, stackEnv, startApp, uniqueName } from '@platform/testing';

const APPS = ['auth', 'content', 'gateway', 'synthesis-worker'] as const;

function baseEnv(): Record<string, string> {
  const stack = stackEnv();
  return {
    ...stack,
    INTERNAL_SECRET: 'e2e-internal-secret-e2e-internal-secret',
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
    const firstLine = running.output().split('\n').find((line) => line.trim().length > 0) ?? '';
    expect(JSON.parse(firstLine)).toMatchObject({ service: app });
  }, 90_000);
});

describe('bad configuration', () => {
  it.each(APPS.filter((a) => a !== 'gateway'))('%s exits non-zero naming a malformed MONGO_URL', async (app) => {
    const port = await freePort();
    const running = await startApp({
      app,
      env: { ...baseEnv(), PORT: String(port), MONGO_URL: 'not-a-mongo-url' },
      waitReady: false,
    });
    const code = await running.exited;
    expect(code).not.toBe(0);
    expect(running.output()).toMatch(/MONGO_URL: malformed/);
  }, 30_000);

  it('gateway exits non-zero naming a missing REDIS_URL', async () => {
    const port = await freePort();
    const { REDIS_URL: _omitted, ...env } = baseEnv();
    const running = await startApp({ app: 'gateway', env: { ...env, PORT: String(port) }, waitReady: false });
    expect(await running.exited).not.toBe(0);
    expect(running.output()).toMatch(/REDIS_URL: missing/);
  }, 30_000);
});
