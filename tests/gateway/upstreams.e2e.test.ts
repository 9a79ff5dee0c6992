import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, stackEnv, startApp, uniqueName, type RunningApp } from '@platform/testing';
import { INTERNAL_SECRET, json } from './platform';

/**
 * Upstream failures: content down (nothing listening), content slow (accepts, never answers),
 * auth down. Each answers quickly in its interface's shape, and the gateway keeps serving.
 */
let gateway: RunningApp;
let slowGateway: RunningApp;
let stalled: http.Server;
const held: http.ServerResponse[] = [];

beforeAll(async () => {
  stalled = http.createServer((_req, res) => held.push(res));
  await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  const stalledUrl = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`;
  const deadUrl = `http://127.0.0.1:${await freePort()}`;
  const base = {
    ...stackEnv(),
    INTERNAL_SECRET,
    LOG_LEVEL: 'warn',
    KAFKA_TOPIC_PREFIX: `${uniqueName('gwup')}.`,
    RATE_LIMIT_PREFIX: uniqueName('gwup'),
    PLAN_LIMITS_JSON: JSON.stringify({ anonymous: { rps: 1000, concurrency: 100 } }),
    UPSTREAM_TIMEOUT_MS: '600',
    MAX_BODY_BYTES: '4096',
    MAX_GRAPHQL_BODY_BYTES: '2048',
  };
  const [downPort, slowPort] = [await freePort(), await freePort()];
  [gateway, slowGateway] = await Promise.all([
    startApp({ app: 'gateway', env: { ...base, PORT: String(downPort), CONTENT_URL: deadUrl, AUTH_URL: deadUrl }, readyTimeoutMs: 60_000 }),
    startApp({ app: 'gateway', env: { ...base, PORT: String(slowPort), CONTENT_URL: stalledUrl, AUTH_URL: stalledUrl }, readyTimeoutMs: 60_000 }),
  ]);
}, 90_000);

afterAll(async () => {
  for (const res of held) res.destroy();
  await Promise.allSettled([gateway?.stop(), slowGateway?.stop()]);
  stalled?.closeAllConnections();
  await new Promise((resolve) => stalled?.close(resolve));
});

async function timed(url: string, init?: RequestInit) {
  const started = Date.now();
  const res = await fetch(url, init);
  const body = await json(res);
  return { res, body, ms: Date.now() - started };
}

describe('an upstream that is down', () => {
  it('gives 503 in the content REST shape, at once', async () => {
    const { res, body, ms } = await timed(`${gateway.url}/api/v1/posts`);
    expect(res.status).toBe(503);
    expect(body).toEqual({ error: { code: 503, message: 'content is unavailable' } });
    expect(res.headers.get('retry-after')).toBe('1');
    expect(ms).toBeLessThan(2500);
  });

  it('gives 503 in the GraphQL shape', async () => {
    const { res, body } = await timed(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ posts { totalCount } }' }),
    });
    expect(res.status).toBe(503);
    expect(body).toEqual({ errors: [{ message: 'content is unavailable', extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] });
  });

  it('gives 503 in the OAuth shape for the authorization server', async () => {
    const { res, body } = await timed(`${gateway.url}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials' }) });
    expect(res.status).toBe(503);
    expect(body).toEqual({ error: 'temporarily_unavailable', error_description: 'auth is unavailable' });
  });

  it('gives 503 in the speech shape when an API key cannot be checked', async () => {
    const { res, body } = await timed(`${gateway.url}/v1/models`, { headers: { 'xi-api-key': `sk_${'0'.repeat(64)}` } });
    expect(res.status).toBe(503);
    expect(body).toEqual({ detail: { status: 'error', message: 'authentication is temporarily unavailable' } });
  });
});

describe('an upstream that is slow', () => {
  it('gives 504 within the configured bound, in each shape', async () => {
    const rest = await timed(`${slowGateway.url}/api/v1/posts`);
    expect(rest.res.status).toBe(504);
    expect(rest.body).toEqual({ error: { code: 504, message: 'content did not answer in time' } });
    expect(rest.ms).toBeGreaterThanOrEqual(550);
    expect(rest.ms).toBeLessThan(3000);
    const oauth = await timed(`${slowGateway.url}/.well-known/oauth-authorization-server`);
    expect(oauth.res.status).toBe(504);
    expect(oauth.body).toEqual({ error: 'temporarily_unavailable', error_description: 'auth did not answer in time' });
  });

  it('keeps serving other routes while requests hang upstream', async () => {
    const hanging = Array.from({ length: 5 }, () => timed(`${slowGateway.url}/api/v1/posts`));
    const health = await timed(`${slowGateway.url}/healthz`);
    expect(health.res.status).toBe(200);
    expect(health.ms).toBeLessThan(500);
    const unknown = await timed(`${slowGateway.url}/internal/accounts`);
    expect(unknown.res.status).toBe(404);
    for (const r of await Promise.all(hanging)) expect(r.res.status).toBe(504);
  });
});

describe('bounded input', () => {
  it('refuses bodies over the limits with 413 in each shape, before any upstream is asked', async () => {
    const rest = await timed(`${gateway.url}/api/v1/posts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'x'.repeat(5000) }) });
    expect(rest.res.status).toBe(413);
    expect(rest.body).toEqual({ error: { code: 413, message: 'request body exceeds 4096 bytes' } });
    const graphql = await timed(`${gateway.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: `{ ${'a '.repeat(2000)} }` }) });
    expect(graphql.res.status).toBe(413);
    expect(graphql.body).toEqual({ errors: [{ message: 'request body exceeds 2048 bytes', extensions: { code: 'BAD_USER_INPUT' } }] });
  });

  it('never answers 500 to malformed requests', async () => {
    const probes: [string, RequestInit][] = [
      ['/api/v1/%E0%A4%A', {}],
      ['/v1/models', { headers: { authorization: 'Bearer \u00ff' } }],
      ['/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' }],
      ['/graphql?query=%7B', {}],
      ['//evil.example/api/v1/posts', {}],
      ['/v1/models', { headers: { 'xi-api-key': 'k'.repeat(9000) } }],
    ];
    for (const [path, init] of probes) {
      const res = await fetch(`${gateway.url}${path}`, init);
      expect([path, res.status]).not.toEqual([path, 500]);
      expect(res.status).toBeLessThan(600);
    }
  });
});

describe('routing', () => {
  it('never forwards internal endpoints', async () => {
    for (const path of ['/internal/api-keys/lookup', '/internal/accounts', '/internal']) {
      const res = await fetch(`${gateway.url}${path}`, { method: 'POST' });
      expect(res.status).toBe(404);
    }
  });

  it('refuses WebSocket upgrades on unknown paths', async () => {
    const status = await new Promise<number | undefined>((resolve) => {
      const req = http.request(`${gateway.url}/nowhere`, { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } });
      req.on('response', (res) => resolve(res.statusCode));
      req.on('upgrade', () => resolve(101));
      req.on('error', () => resolve(undefined));
      req.end();
    });
    expect(status).toBe(404);
  });
});
