import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type KeyLike } from 'jose';
import { freePort, stackEnv, startApp, uniqueName, type RunningApp } from '@platform/testing';
import { eventually, INTERNAL_SECRET, json } from './platform';
import { closeCode, collect, wsClient } from './subscriptions-client';

/**
 * Upstream failures: content down (nothing listening), content slow (accepts, never answers),
 * auth down, and upstreams that reset the connection or answer garbage. Each answers quickly in
 * its interface's shape, and the gateway keeps serving.
 *
 * A third gateway ("scripted") stands in front of a fake auth (a JWKS of this test's own key, and
 * API-key lookups from a table) and a fake content whose behaviour each test sets: it proves
 * 502s, plan concurrency with held requests, and request-id propagation without the real services.
 *
 * A fourth gateway ("keyless") has its own fake auth, stopped until a test starts it: it has never
 * fetched auth's signing keys when the first tokens reach it.
 */
let gateway: RunningApp;
let slowGateway: RunningApp;
let scripted: RunningApp;
let stalled: http.Server;
const held: http.ServerResponse[] = [];

type Behaviour = (req: http.IncomingMessage, res: http.ServerResponse) => void;
/** What the fake content does with the next requests (tests set it; `answer` by default). */
let contentBehaviour: Behaviour;
/** What the fake auth does with public paths and API-key lookups. */
let authBehaviour: Behaviour;
const contentSeen: http.IncomingHttpHeaders[] = [];
const parked: http.ServerResponse[] = [];
let fakeContent: http.Server;
let fakeAuth: http.Server;
let signingKey: KeyLike;
/** The fake auth's JWKS (the public half of `signingKey`). */
let jwks: { keys: object[] };
let keyless: RunningApp;
/** The keyless gateway's auth: a JWKS on a fixed port, down (nothing listening) until started. */
let keylessAuth: http.Server | undefined;
let keylessAuthPort: number;
/** API key → the record auth's lookup answers (docs/architecture.md, `/internal/api-keys/lookup`). */
const apiKeys = new Map<string, { accountId: string; keyId: string; plan: string; roles: string[] }>();

/** Answers as content does, echoing the request id it got (or making its own, as libs/logger does). */
const answer: Behaviour = (req, res) => {
  const given = req.headers['x-request-id'];
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': typeof given === 'string' ? given : `content-${randomUUID()}` });
  res.end(JSON.stringify({ data: [], path: req.url }));
};
/** TCP reset: the connection dies with RST, no status line. */
const reset: Behaviour = (req) => req.socket.resetAndDestroy();
/** Bytes that are not an HTTP response, then the connection closes. */
const garbage: Behaviour = (req) => req.socket.end('HTTP/1.1 two hundred\r\n\x00\x01 not http at all\r\n\r\n');
const park: Behaviour = (_req, res) => parked.push(res);
/** The fake auth: API-key lookups from the table, 404 for everything else. */
const authAnswer: Behaviour = (req, res) => {
  if (req.url !== '/internal/api-keys/lookup') {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    return;
  }
  void readBody(req).then((body) => {
    const record = apiKeys.get((JSON.parse(body) as { key: string }).key);
    res.writeHead(record ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(record ?? { error: 'invalid_api_key' }));
  });
};

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}

beforeAll(async () => {
  stalled = http.createServer((_req, res) => held.push(res));
  const stalledUrl = await listen(stalled);
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  signingKey = privateKey;
  const jwk = { ...(await exportJWK(publicKey)), kid: 'scripted', alg: 'ES256', use: 'sig' };
  jwks = { keys: [jwk] };
  contentBehaviour = answer;
  authBehaviour = authAnswer;
  fakeContent = http.createServer((req, res) => {
    contentSeen.push(req.headers);
    contentBehaviour(req, res);
  });
  fakeAuth = http.createServer((req, res) => {
    if (req.url === '/jwks') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    else authBehaviour(req, res);
  });
  const [fakeContentUrl, fakeAuthUrl] = [await listen(fakeContent), await listen(fakeAuth)];
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
  const [downPort, slowPort, scriptedPort, keylessPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  keylessAuthPort = await freePort();
  [gateway, slowGateway, scripted, keyless] = await Promise.all([
    startApp({ app: 'gateway', env: { ...base, PORT: String(downPort), CONTENT_URL: deadUrl, AUTH_URL: deadUrl }, readyTimeoutMs: 60_000 }),
    startApp({ app: 'gateway', env: { ...base, PORT: String(slowPort), CONTENT_URL: stalledUrl, AUTH_URL: stalledUrl }, readyTimeoutMs: 60_000 }),
    startApp({
      app: 'gateway',
      env: {
        ...base,
        PORT: String(scriptedPort),
        PUBLIC_URL: `http://127.0.0.1:${scriptedPort}`,
        CONTENT_URL: fakeContentUrl,
        AUTH_URL: fakeAuthUrl,
        // Long enough that a 502 cannot be a timeout, and that held requests stay held.
        UPSTREAM_TIMEOUT_MS: '10000',
      },
      readyTimeoutMs: 60_000,
    }),
    startApp({
      app: 'gateway',
      env: {
        ...base,
        PORT: String(keylessPort),
        PUBLIC_URL: `http://127.0.0.1:${keylessPort}`,
        CONTENT_URL: fakeContentUrl,
        AUTH_URL: `http://127.0.0.1:${keylessAuthPort}`,
      },
      readyTimeoutMs: 60_000,
    }),
  ]);
}, 120_000);

afterAll(async () => {
  for (const res of [...held, ...parked]) res.destroy();
  await Promise.allSettled([gateway?.stop(), slowGateway?.stop(), scripted?.stop(), keyless?.stop()]);
  for (const server of [stalled, fakeContent, fakeAuth, keylessAuth]) {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
});

afterEach(() => {
  contentBehaviour = answer;
  authBehaviour = authAnswer;
  for (const res of parked.splice(0)) res.destroy();
});

/** An access token as auth would issue it (RFC 9068), signed with the key the fake JWKS serves. */
async function accessToken(
  claims: { sub: string; plan?: string; roles?: string[]; scope?: string },
  options: { issuer?: string; expiresAt?: number | string } = {},
): Promise<string> {
  const issuer = options.issuer ?? scripted.url;
  return new SignJWT({ scope: 'content:read content:write', roles: ['USER'], client_id: 'scripted-test', ...claims, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'scripted' })
    .setIssuer(issuer)
    .setAudience(issuer)
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(options.expiresAt ?? '10m')
    .sign(signingKey);
}

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

describe('an upstream that resets the connection or answers garbage', () => {
  const failures: [string, Behaviour][] = [
    ['resets the connection', reset],
    ['sends a malformed response', garbage],
  ];

  it.each(failures)('content that %s: 502 in the REST and GraphQL shapes, at once', async (_what, behaviour) => {
    contentBehaviour = behaviour;
    const rest = await timed(`${scripted.url}/api/v1/posts`);
    expect(rest.res.status).toBe(502);
    expect(rest.body).toEqual({ error: { code: 502, message: 'content failed to answer' } });
    // The upstream bound here is 10 s: a 502 this fast is the failure itself, not a timeout.
    expect(rest.ms).toBeLessThan(1500);
    const graphql = await timed(`${scripted.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ posts { totalCount } }' }),
    });
    expect(graphql.res.status).toBe(502);
    expect(graphql.body).toEqual({ errors: [{ message: 'content failed to answer', extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] });
    expect(graphql.ms).toBeLessThan(1500);
    contentBehaviour = answer;
    expect((await timed(`${scripted.url}/api/v1/posts`)).res.status).toBe(200);
  });

  it.each(failures)('auth that %s: 502 in the OAuth shape; an API key it cannot check gets 503 in the speech shape', async (_what, behaviour) => {
    authBehaviour = behaviour;
    const oauth = await timed(`${scripted.url}/.well-known/oauth-authorization-server`);
    expect(oauth.res.status).toBe(502);
    expect(oauth.body).toEqual({ error: 'temporarily_unavailable', error_description: 'auth failed to answer' });
    expect(oauth.ms).toBeLessThan(1500);
    // The speech API has no upstream of its own: its one remote call is the API-key lookup, and a
    // lookup that fails is an outage (503), never a false invalid_api_key (docs/gateway.md).
    const key = `sk_${randomUUID().replace(/-/g, '')}${'0'.repeat(32)}`;
    const speech = await timed(`${scripted.url}/v1/models`, { headers: { 'xi-api-key': key } });
    expect(speech.res.status).toBe(503);
    expect(speech.body).toEqual({ detail: { status: 'error', message: 'authentication is temporarily unavailable' } });
    expect(speech.res.headers.get('retry-after')).toBe('1');
    expect(speech.ms).toBeLessThan(1500);
  });

  it('content that fails after its status line: the connection is cut, never left hanging', async () => {
    contentBehaviour = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"data":[');
      setTimeout(() => req.socket.resetAndDestroy(), 50);
    };
    const started = Date.now();
    const res = await fetch(`${scripted.url}/api/v1/posts`);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe('plan concurrency, with requests held upstream', () => {
  // Free (no plan claim: docs say unknown or missing is Free) 3 rps / 2; Starter 5 / 2; Creator 10 / 5.
  it.each([
    ['free (no plan claim)', 2, 3, undefined],
    ['starter', 2, 5, 'starter'],
    ['creator', 5, 10, 'creator'],
  ] as const)('%s: with its %i slots held, one more request gets 429 with Retry-After and X-RateLimit-*; a finished request frees its slot', async (_name, concurrency, rps, plan) => {
    const sub = `acct-${randomUUID()}`;
    const auth = { authorization: `Bearer ${await accessToken({ sub, ...(plan ? { plan } : {}) })}` };
    contentBehaviour = park;
    const slow = Array.from({ length: concurrency }, () => timed(`${scripted.url}/api/v1/posts`, { headers: auth }));
    await eventually(async () => parked.length === concurrency, 10_000);
    const reachedContent = contentSeen.length;

    const extra = await timed(`${scripted.url}/api/v1/posts`, { headers: auth });
    const now = Math.floor(Date.now() / 1000);
    expect(extra.res.status).toBe(429);
    expect(extra.body).toEqual({ error: { code: 429, message: 'too many concurrent requests for your plan; retry when one finishes' } });
    expect(extra.res.headers.get('retry-after')).toBe('1');
    expect(extra.res.headers.get('x-ratelimit-limit')).toBe(String(rps));
    expect(Number(extra.res.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    expect(Number(extra.res.headers.get('x-ratelimit-remaining'))).toBeLessThan(rps);
    expect(Number(extra.res.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(now - 1);
    expect(Number(extra.res.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(now + 2);
    expect(extra.ms).toBeLessThan(1500);
    expect(contentSeen.length).toBe(reachedContent);

    // Another account on the same plan has its own slots.
    const other = timed(`${scripted.url}/api/v1/posts`, { headers: { authorization: `Bearer ${await accessToken({ sub: `acct-${randomUUID()}`, ...(plan ? { plan } : {}) })}` } });
    await eventually(async () => parked.length === concurrency + 1, 10_000);

    for (const res of parked.splice(0)) answer({ headers: {} } as http.IncomingMessage, res);
    for (const done of [...(await Promise.all(slow)), await other]) {
      expect(done.res.status).toBe(200);
      expect(done.res.headers.get('x-ratelimit-limit')).toBe(String(rps));
    }
    contentBehaviour = answer;
    // The held requests finished: their slots are free again. (Past this second's window first, so
    // a small plan's rate — Free: 3 — cannot be what answers.)
    const windowEnds = Number(extra.res.headers.get('x-ratelimit-reset')) * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, windowEnds - Date.now()) + 50));
    expect((await timed(`${scripted.url}/api/v1/posts`, { headers: auth })).res.status).toBe(200);
  });
});

describe('request ids', () => {
  it('echoes a well-formed x-request-id and hands the same id to the upstream', async () => {
    const id = `e2e-${randomUUID()}`;
    const res = await fetch(`${scripted.url}/api/v1/posts`, { headers: { 'x-request-id': id } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(id);
    expect(contentSeen.at(-1)?.['x-request-id']).toBe(id);
  });

  it('generates one when it is missing or malformed, answers with it, and hands that id to the upstream', async () => {
    for (const given of [undefined, 'has spaces and ; semicolons', 'x'.repeat(65)]) {
      const res = await fetch(`${scripted.url}/api/v1/posts`, { headers: given ? { 'x-request-id': given } : {} });
      expect(res.status).toBe(200);
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      // One id for the whole request: what the gateway logged is what content saw and the client got.
      expect(contentSeen.at(-1)?.['x-request-id']).toBe(id);
    }
    // Answers the gateway makes itself carry one too.
    const own = await fetch(`${scripted.url}/v1/models`);
    expect(own.status).toBe(401);
    expect(own.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("a replica that has not fetched auth's signing keys while auth is down", () => {
  async function startKeylessAuth(): Promise<void> {
    keylessAuth = http.createServer((req, res) => {
      if (req.url === '/jwks') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    });
    await new Promise<void>((resolve) => keylessAuth!.listen(keylessAuthPort, '127.0.0.1', resolve));
  }

  /** Resolves with the close code, or 0 once the connection is acknowledged. */
  async function wsOutcome(token: string): Promise<number> {
    const client = wsClient(keyless.url, { authorization: `Bearer ${token}` });
    const outcome = new Promise<number>((resolve) => {
      client.on('connected', () => resolve(0));
      void closeCode(client).then(resolve);
    });
    collect(client, 'subscription { onPostCreated { id } }');
    const code = await outcome;
    await client.dispose();
    return code;
  }

  it("answers a valid JWT 503 in each interface's shape (not 401: the token was never judged), then accepts it once auth is back", async () => {
    const token = await accessToken({ sub: `acct-${randomUUID()}`, scope: 'content:read content:write speech:read speech:write' }, { issuer: keyless.url });
    const headers = { authorization: `Bearer ${token}` };
    const message = 'authentication is temporarily unavailable';

    const speech = await timed(`${keyless.url}/v1/models`, { headers });
    expect([speech.res.status, speech.body]).toEqual([503, { detail: { status: 'error', message } }]);
    expect(speech.res.headers.get('retry-after')).toBe('1');
    expect(speech.ms).toBeLessThan(2500);
    const rest = await timed(`${keyless.url}/api/v1/posts`, { headers });
    expect([rest.res.status, rest.body]).toEqual([503, { error: { code: 503, message } }]);
    expect(rest.res.headers.get('retry-after')).toBe('1');
    const graphql = await timed(`${keyless.url}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ posts { totalCount } }' }),
    });
    expect([graphql.res.status, graphql.body]).toEqual([503, { errors: [{ message, extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] }]);
    // graphql-ws: 1013 "try again later" (clients retry it), not 4401 (clients give up on it).
    expect(await wsOutcome(token)).toBe(1013);
    expect(contentSeen.some((seen) => seen.authorization === headers.authorization)).toBe(false);

    // A token that would be refused with keys too is still refused: it is expired whatever its signature.
    const expired = await timed(`${keyless.url}/api/v1/posts`, {
      headers: { authorization: `Bearer ${await accessToken({ sub: 'acct-expired' }, { issuer: keyless.url, expiresAt: Math.floor(Date.now() / 1000) - 60 })}` },
    });
    expect([expired.res.status, expired.body]).toEqual([401, { error: { code: 401, message: 'invalid_token: token expired' } }]);

    await startKeylessAuth();
    expect((await timed(`${keyless.url}/v1/models`, { headers })).res.status).toBe(200);
    expect((await timed(`${keyless.url}/api/v1/posts`, { headers })).res.status).toBe(200);
    expect(await wsOutcome(token)).toBe(0);
  });
});

describe('a graphql-ws connection lives no longer than its token', () => {
  it("is closed 4401 'token expired' at the token's exp", async () => {
    const exp = Math.floor(Date.now() / 1000) + 3;
    const client = wsClient(scripted.url, { authorization: `Bearer ${await accessToken({ sub: `acct-${randomUUID()}` }, { expiresAt: exp })}` });
    let connected = false;
    client.on('connected', () => {
      connected = true;
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => client.on('closed', (event) => resolve(event as { code: number; reason: string })));
    collect(client, 'subscription { onPostCreated { id } }');
    const event = await closed;
    expect(connected).toBe(true);
    expect(event).toMatchObject({ code: 4401, reason: 'token expired' });
    expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000 - 50);
    expect(Date.now()).toBeLessThan(exp * 1000 + 1500);
    await client.dispose();
  }, 15_000);
});
