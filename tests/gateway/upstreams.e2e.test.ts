import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Redis } from 'ioredis';
import { exportJWK, generateKeyPair, SignJWT, type KeyLike } from 'jose';
import { freePort, stackEnv, startApp, uniqueName, untilClock, type RunningApp } from '@platform/testing';
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
 *
 * "At once" is shown against the bounds that could otherwise have produced the answer, never
 * against a stopwatch: the gateways whose upstreams refuse or fail have upstream bounds of 10 s
 * (API-key lookups and JWKS fetches: 5 s, their cap), so an answer before those is the failure
 * itself, not a timeout, however loaded the machine.
 */
/** UPSTREAM_TIMEOUT_MS and UPSTREAM_CONNECT_TIMEOUT_MS of every gateway here but the slow one. */
const UPSTREAM_BOUND_MS = 10_000;
/** What the gateway gives an API-key lookup or a JWKS fetch: min(UPSTREAM_TIMEOUT_MS, 5 s). */
const AUTH_CALL_BOUND_MS = 5_000;
/** The slow gateway's UPSTREAM_TIMEOUT_MS (the bound its 504 test measures). */
const SLOW_UPSTREAM_MS = 600;
/** RATE_LIMIT_PREFIX of the gateways here (their shared limit state in Redis). */
const ratePrefix = uniqueName('gwup');
let redis: Redis;
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
  res.writeHead(200, {
    'content-type': 'application/json',
    'x-request-id': typeof given === 'string' ? given : `content-${randomUUID()}`,
  });
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
    res
      .writeHead(record ? 200 : 404, { 'content-type': 'application/json' })
      .end(JSON.stringify(record ?? { error: 'invalid_api_key' }));
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
    if (req.url === '/jwks')
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    else authBehaviour(req, res);
  });
  const [fakeContentUrl, fakeAuthUrl] = [await listen(fakeContent), await listen(fakeAuth)];
  const deadUrl = `http://127.0.0.1:${await freePort()}`;
  const base = {
    ...stackEnv(),
    INTERNAL_SECRET,
    LOG_LEVEL: 'warn',
    KAFKA_TOPIC_PREFIX: `${uniqueName('gwup')}.`,
    RATE_LIMIT_PREFIX: ratePrefix,
    PLAN_LIMITS_JSON: JSON.stringify({ anonymous: { rps: 1000, concurrency: 100 } }),
    UPSTREAM_TIMEOUT_MS: String(UPSTREAM_BOUND_MS),
    UPSTREAM_CONNECT_TIMEOUT_MS: String(UPSTREAM_BOUND_MS),
    MAX_BODY_BYTES: '4096',
    MAX_GRAPHQL_BODY_BYTES: '2048',
  };
  const [downPort, slowPort, scriptedPort, keylessPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  keylessAuthPort = await freePort();
  [gateway, slowGateway, scripted, keyless] = await Promise.all([
    startApp({
      app: 'gateway',
      env: { ...base, PORT: String(downPort), CONTENT_URL: deadUrl, AUTH_URL: deadUrl },
      readyTimeoutMs: 60_000,
    }),
    startApp({
      app: 'gateway',
      env: {
        ...base,
        PORT: String(slowPort),
        CONTENT_URL: stalledUrl,
        AUTH_URL: stalledUrl,
        UPSTREAM_TIMEOUT_MS: String(SLOW_UPSTREAM_MS),
      },
      readyTimeoutMs: 60_000,
    }),
    startApp({
      app: 'gateway',
      env: {
        ...base,
        PORT: String(scriptedPort),
        PUBLIC_URL: `http://127.0.0.1:${scriptedPort}`,
        CONTENT_URL: fakeContentUrl,
        AUTH_URL: fakeAuthUrl,
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
  redis = new Redis(stackEnv().REDIS_URL);
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
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
  return new SignJWT({
    scope: 'content:read content:write',
    roles: ['USER'],
    client_id: 'scripted-test',
    ...claims,
    jti: randomUUID(),
  })
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
  const ended = Date.now();
  return { res, body, ms: ended - started, started, ended };
}

describe('an upstream that is down', () => {
  it('gives 503 in the content REST shape, at once', async () => {
    const { res, body, ms } = await timed(`${gateway.url}/api/v1/posts`);
    expect(res.status).toBe(503);
    expect(body).toEqual({ error: { code: 503, message: 'content is unavailable' } });
    expect(res.headers.get('retry-after')).toBe('1');
    // Before its connect and upstream bounds could fire: the refused connection answered.
    expect(ms).toBeLessThan(UPSTREAM_BOUND_MS);
  });

  it('gives 503 in the GraphQL shape', async () => {
    const { res, body } = await timed(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ posts { totalCount } }' }),
    });
    expect(res.status).toBe(503);
    expect(body).toEqual({
      errors: [{ message: 'content is unavailable', extensions: { code: 'UPSTREAM_UNAVAILABLE' } }],
    });
  });

  it('gives 503 in the OAuth shape for the authorization server', async () => {
    const { res, body } = await timed(`${gateway.url}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(res.status).toBe(503);
    expect(body).toEqual({ error: 'temporarily_unavailable', error_description: 'auth is unavailable' });
  });

  it('gives 503 in the speech shape when an API key cannot be checked', async () => {
    const { res, body } = await timed(`${gateway.url}/v1/models`, {
      headers: { 'xi-api-key': `sk_${'0'.repeat(64)}` },
    });
    expect(res.status).toBe(503);
    expect(body).toEqual({ detail: { status: 'error', message: 'authentication is temporarily unavailable' } });
  });
});

describe('an upstream that is slow', () => {
  it('gives 504 within the configured bound, in each shape', async () => {
    const rest = await timed(`${slowGateway.url}/api/v1/posts`);
    expect(rest.res.status).toBe(504);
    expect(rest.body).toEqual({ error: { code: 504, message: 'content did not answer in time' } });
    // Not before the configured bound; after it with a margin for a loaded machine, yet well
    // before the 10 s default: this gateway's own bound answered.
    expect(rest.ms).toBeGreaterThanOrEqual(SLOW_UPSTREAM_MS - 50);
    expect(rest.ms).toBeLessThan(5_000);
    const oauth = await timed(`${slowGateway.url}/.well-known/oauth-authorization-server`);
    expect(oauth.res.status).toBe(504);
    expect(oauth.body).toEqual({ error: 'temporarily_unavailable', error_description: 'auth did not answer in time' });
  });

  it('keeps serving other routes while requests hang upstream', async () => {
    // Content that holds every request until the test lets go (the scripted gateway's fake), so
    // "while they hang" does not depend on answering faster than an upstream timeout.
    contentBehaviour = park;
    let finished = 0;
    const hanging = Array.from({ length: 5 }, () =>
      timed(`${scripted.url}/api/v1/posts`).finally(() => (finished += 1)),
    );
    await eventually(async () => parked.length === 5, 10_000);
    const health = await timed(`${scripted.url}/healthz`);
    expect(health.res.status).toBe(200);
    const unknown = await timed(`${scripted.url}/internal/accounts`);
    expect(unknown.res.status).toBe(404);
    // Both were answered while all five were still hanging upstream.
    expect(finished).toBe(0);
    expect(parked).toHaveLength(5);
    for (const res of parked.splice(0)) answer({ headers: {} } as http.IncomingMessage, res);
    for (const r of await Promise.all(hanging)) expect(r.res.status).toBe(200);
  });
});

describe('bounded input', () => {
  it('refuses bodies over the limits with 413 in each shape, before any upstream is asked', async () => {
    const rest = await timed(`${gateway.url}/api/v1/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x'.repeat(5000) }),
    });
    expect(rest.res.status).toBe(413);
    expect(rest.body).toEqual({ error: { code: 413, message: 'request body exceeds 4096 bytes' } });
    const graphql = await timed(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ ${'a '.repeat(2000)} }` }),
    });
    expect(graphql.res.status).toBe(413);
    expect(graphql.body).toEqual({
      errors: [{ message: 'request body exceeds 2048 bytes', extensions: { code: 'BAD_USER_INPUT' } }],
    });
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
      const req = http.request(`${gateway.url}/nowhere`, {
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
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
    // The upstream bound here is 10 s: a 502 before it is the failure itself, not a timeout.
    expect(rest.ms).toBeLessThan(UPSTREAM_BOUND_MS);
    const graphql = await timed(`${scripted.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ posts { totalCount } }' }),
    });
    expect(graphql.res.status).toBe(502);
    expect(graphql.body).toEqual({
      errors: [{ message: 'content failed to answer', extensions: { code: 'UPSTREAM_UNAVAILABLE' } }],
    });
    expect(graphql.ms).toBeLessThan(UPSTREAM_BOUND_MS);
    contentBehaviour = answer;
    expect((await timed(`${scripted.url}/api/v1/posts`)).res.status).toBe(200);
  });

  it.each(failures)(
    'auth that %s: 502 in the OAuth shape; an API key it cannot check gets 503 in the speech shape',
    async (_what, behaviour) => {
      authBehaviour = behaviour;
      const oauth = await timed(`${scripted.url}/.well-known/oauth-authorization-server`);
      expect(oauth.res.status).toBe(502);
      expect(oauth.body).toEqual({ error: 'temporarily_unavailable', error_description: 'auth failed to answer' });
      expect(oauth.ms).toBeLessThan(UPSTREAM_BOUND_MS);
      // The speech API has no upstream of its own: its one remote call is the API-key lookup, and a
      // lookup that fails is an outage (503), never a false invalid_api_key (docs/gateway.md).
      const key = `sk_${randomUUID().replace(/-/g, '')}${'0'.repeat(32)}`;
      const speech = await timed(`${scripted.url}/v1/models`, { headers: { 'xi-api-key': key } });
      expect(speech.res.status).toBe(503);
      expect(speech.body).toEqual({
        detail: { status: 'error', message: 'authentication is temporarily unavailable' },
      });
      expect(speech.res.headers.get('retry-after')).toBe('1');
      expect(speech.ms).toBeLessThan(AUTH_CALL_BOUND_MS);
    },
  );

  it('content that fails after its status line: the connection is cut, never left hanging', async () => {
    let upstream: Socket | undefined;
    contentBehaviour = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"data":[');
      upstream = req.socket;
    };
    const res = await fetch(`${scripted.url}/api/v1/posts`);
    expect(res.status).toBe(200);
    // The client has the status line, so the gateway has passed it on: now content dies mid-body.
    const cut = Date.now();
    upstream!.resetAndDestroy();
    await expect(res.text()).rejects.toThrow();
    // Ended by the reset, not by some bound (the upstream one here is 10 s).
    expect(Date.now() - cut).toBeLessThan(UPSTREAM_BOUND_MS);
  });
});

describe('plan concurrency, with requests held upstream', () => {
  // Free (no plan claim: docs say unknown or missing is Free) 3 rps / 2; Starter 5 / 2; Creator 10 / 5.
  it.each([
    ['free (no plan claim)', 2, 3, undefined],
    ['starter', 2, 5, 'starter'],
    ['creator', 5, 10, 'creator'],
  ] as const)(
    '%s: with its %i slots held, one more request gets 429 with Retry-After and X-RateLimit-*; a finished request frees its slot',
    async (_name, concurrency, rps, plan) => {
      const sub = `acct-${randomUUID()}`;
      const auth = { authorization: `Bearer ${await accessToken({ sub, ...(plan ? { plan } : {}) })}` };
      contentBehaviour = park;
      let slowFinished = 0;
      const slow = Array.from({ length: concurrency }, () =>
        timed(`${scripted.url}/api/v1/posts`, { headers: auth }).finally(() => (slowFinished += 1)),
      );
      await eventually(async () => parked.length === concurrency, 10_000);
      const reachedContent = contentSeen.length;
      // The account's leases in Redis (the gateway's concurrency state): one per held request.
      const leases = `${ratePrefix}:conc:acct:${sub}`;
      expect(await redis.zcard(leases)).toBe(concurrency);

      const extra = await timed(`${scripted.url}/api/v1/posts`, { headers: auth });
      expect(extra.res.status).toBe(429);
      expect(extra.body).toEqual({
        error: {
          code: 429,
          message: `concurrent requests limit: the ${plan ?? 'free'} plan allows ${concurrency} at once; retry after 1 s, or when one of yours finishes`,
        },
      });
      expect(extra.res.headers.get('retry-after')).toBe('1');
      expect(extra.res.headers.get('x-ratelimit-limit')).toBe(String(rps));
      expect(Number(extra.res.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
      expect(Number(extra.res.headers.get('x-ratelimit-remaining'))).toBeLessThan(rps);
      // The window was open when the gateway counted the request, between sending it and its answer;
      // it ends at most one second after.
      expect(Number(extra.res.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(
        Math.floor(extra.started / 1000),
      );
      expect(Number(extra.res.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(Math.ceil(extra.ended / 1000) + 1);
      // Refused at once, not queued for a slot: the held requests were all still held when it was answered.
      expect(slowFinished).toBe(0);
      expect(contentSeen.length).toBe(reachedContent);

      // Another account on the same plan has its own slots.
      const other = timed(`${scripted.url}/api/v1/posts`, {
        headers: {
          authorization: `Bearer ${await accessToken({ sub: `acct-${randomUUID()}`, ...(plan ? { plan } : {}) })}`,
        },
      });
      await eventually(async () => parked.length === concurrency + 1, 10_000);

      for (const res of parked.splice(0)) answer({ headers: {} } as http.IncomingMessage, res);
      for (const done of [...(await Promise.all(slow)), await other]) {
        expect(done.res.status).toBe(200);
        expect(done.res.headers.get('x-ratelimit-limit')).toBe(String(rps));
      }
      contentBehaviour = answer;
      // The held requests finished: their slots are free again. The gateway gives a slot back once
      // the response has closed, a Redis call after the client may already have it: wait for that
      // (well within the 30 s a lease would take to lapse on its own). And past this second's
      // window first, so a small plan's rate — Free: 3 — cannot be what answers.
      await eventually(async () => (await redis.zcard(leases)) === 0, 10_000);
      await untilClock(Number(extra.res.headers.get('x-ratelimit-reset')) * 1000);
      expect((await timed(`${scripted.url}/api/v1/posts`, { headers: auth })).res.status).toBe(200);
    },
  );
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
    const token = await accessToken(
      { sub: `acct-${randomUUID()}`, scope: 'content:read content:write speech:read speech:write' },
      { issuer: keyless.url },
    );
    const headers = { authorization: `Bearer ${token}` };
    const message = 'authentication is temporarily unavailable';

    const speech = await timed(`${keyless.url}/v1/models`, { headers });
    expect([speech.res.status, speech.body]).toEqual([503, { detail: { status: 'error', message } }]);
    expect(speech.res.headers.get('retry-after')).toBe('1');
    // Before the JWKS fetch's own bound (5 s) could fire: auth's refused connection answered.
    expect(speech.ms).toBeLessThan(AUTH_CALL_BOUND_MS);
    const rest = await timed(`${keyless.url}/api/v1/posts`, { headers });
    expect([rest.res.status, rest.body]).toEqual([503, { error: { code: 503, message } }]);
    expect(rest.res.headers.get('retry-after')).toBe('1');
    const graphql = await timed(`${keyless.url}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ posts { totalCount } }' }),
    });
    expect([graphql.res.status, graphql.body]).toEqual([
      503,
      { errors: [{ message, extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] },
    ]);
    // graphql-ws: 1013 "try again later" (clients retry it), not 4401 (clients give up on it).
    expect(await wsOutcome(token)).toBe(1013);
    expect(contentSeen.some((seen) => seen.authorization === headers.authorization)).toBe(false);

    // A token that would be refused with keys too is still refused: it is expired whatever its signature.
    const expired = await timed(`${keyless.url}/api/v1/posts`, {
      headers: {
        authorization: `Bearer ${await accessToken({ sub: 'acct-expired' }, { issuer: keyless.url, expiresAt: Math.floor(Date.now() / 1000) - 60 })}`,
      },
    });
    expect([expired.res.status, expired.body]).toEqual([
      401,
      { error: { code: 401, message: 'invalid_token: token expired' } },
    ]);

    await startKeylessAuth();
    expect((await timed(`${keyless.url}/v1/models`, { headers })).res.status).toBe(200);
    expect((await timed(`${keyless.url}/api/v1/posts`, { headers })).res.status).toBe(200);
    expect(await wsOutcome(token)).toBe(0);
  });
});

describe('a graphql-ws connection lives no longer than its token', () => {
  it("is closed 4401 'token expired' at the token's exp", async () => {
    // Far enough ahead that connecting (and the first JWKS fetch) is done well before it.
    const exp = Math.floor(Date.now() / 1000) + 6;
    const client = wsClient(scripted.url, {
      authorization: `Bearer ${await accessToken({ sub: `acct-${randomUUID()}` }, { expiresAt: exp })}`,
    });
    let connected = false;
    client.on('connected', () => {
      connected = true;
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      client.on('closed', (event) => resolve(event as { code: number; reason: string })),
    );
    collect(client, 'subscription { onPostCreated { id } }');
    const event = await closed;
    expect(connected).toBe(true);
    expect(event).toMatchObject({ code: 4401, reason: 'token expired' });
    // Closed by the timer set for exp: not before it, and after it only by a loaded machine's lag.
    expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000 - 50);
    expect(Date.now()).toBeLessThan(exp * 1000 + 5_000);
    await client.dispose();
  }, 30_000);
});
