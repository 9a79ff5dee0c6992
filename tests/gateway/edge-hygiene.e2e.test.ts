import { freePort, stackEnv, startApp, uniqueName, type RunningApp } from '@platform/testing';
import { startPlatform, type Platform } from './platform';

/**
 * HTTP hygiene every app shares: each answer, of every interface and every app (successes, the
 * gateway's own refusals, upstream errors, 404s, auth's fast lane, health routes), says
 * `X-Content-Type-Options: nosniff`, so a browser never sniffs a JSON body into HTML or script.
 */
let platform: Platform;
let gateway: string;
let worker: RunningApp;

beforeAll(async () => {
  platform = await startPlatform({
    authEnv: { LOG_LEVEL: 'info' },
    gatewayEnv: { LOG_LEVEL: 'info', PLAN_LIMITS_JSON: JSON.stringify({ anonymous: { rps: 1000, concurrency: 100 } }) },
  });
  gateway = platform.gateways[0]!.url;
  const stack = stackEnv();
  worker = await startApp({
    app: 'synthesis-worker',
    env: {
      REDIS_URL: stack.REDIS_URL,
      MONGO_URL: stack.MONGO_URL,
      MONGO_DB: uniqueName('hygspeech'),
      PORT: String(await freePort()),
      SYNTHESIS_QUEUE: uniqueName('hygqueue'),
      SPEECH_KEY_PREFIX: uniqueName('hygspeech'),
      PIPER_VOICES_DIR: '',
    },
    readyTimeoutMs: 60_000,
  });
}, 120_000);

afterAll(async () => {
  await Promise.allSettled([platform?.stop(), worker?.stop()]);
});

describe('X-Content-Type-Options: nosniff on every answer', () => {
  const form = (body: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  });

  it.each([
    ['gateway 404', '/no/such/thing', {}, 404],
    ['gateway path refusal', '/jwks/..%2fx', {}, 400],
    ['speech without credentials', '/v1/models', {}, 401],
    ['speech with a made-up key', '/v1/models', { headers: { 'xi-api-key': 'sk_made_up' } }, 401],
    ['content REST (proxied)', '/api/v1/posts', {}, 401],
    ['content REST 404 (proxied)', '/api/v1/no-such-route', {}, 404],
    ['GraphQL (proxied)', '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' }, 200],
    ['GraphQL bad method', '/graphql', { method: 'PUT' }, 405],
    ['OAuth metadata (proxied)', '/.well-known/oauth-authorization-server', {}, 200],
    ['OAuth JWKS (proxied)', '/jwks', {}, 200],
    ['OAuth /token error (auth fast lane)', '/token', form({ grant_type: 'password' }), 400],
    ['OAuth /authorize error page', '/authorize?client_id=nobody', {}, 400],
    ['gateway /healthz', '/healthz', {}, 200],
  ] as const)('through the gateway: %s', async (_name, path, init, status) => {
    const res = await fetch(`${gateway}${path}`, { redirect: 'manual', ...init });
    await res.arrayBuffer();
    expect(res.status).toBe(status);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it.each([
    ['auth', () => platform.auth.url, ['/healthz', '/readyz', '/no-such', '/internal/accounts']],
    ['content', () => platform.content.url, ['/healthz', '/readyz', '/api/v1/posts', '/nope']],
    ['synthesis-worker', () => worker.url, ['/healthz', '/metrics', '/nope']],
  ] as const)('directly from %s', async (_name, base, paths) => {
    for (const path of paths) {
      const res = await fetch(`${base()}${path}`);
      await res.arrayBuffer();
      expect({ path, nosniff: res.headers.get('x-content-type-options') }).toEqual({ path, nosniff: 'nosniff' });
    }
    const token = await fetch(`${platform.auth.url}/token`, form({ grant_type: 'client_credentials' }));
    await token.arrayBuffer();
    expect(token.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
