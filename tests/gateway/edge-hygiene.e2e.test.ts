import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Issuer } from 'openid-client';
import { freePort, inOneWindow, stackEnv, startApp, uniqueName, untilClock, type RunningApp } from '@platform/testing';
import { authorizeCode, FormAgent } from '../auth/helpers/fixtures';
import { createApiKey, eventually, INTERNAL_SECRET, registerAccount, startPlatform, type Platform } from './platform';

const run = promisify(execFile);

/**
 * HTTP hygiene every app shares. Logs: a sign-in and the authorization code flow through the
 * gateway, tokens used, refreshed and revoked, leave no cookie value, code, state, token or API
 * key in the gateway's log output (its request log records every URL and response header).
 * Client addresses: X-Forwarded-For is believed only from TRUSTED_PROXIES (none by default), and
 * auth and content take the address from the gateway's signed identity, so per-address limits (the
 * gateway's anonymous budget, auth's wrong device codes and sign-in failures) cannot be reset by
 * rotating the header. And each answer, of every interface and every app (successes, the
 * gateway's own refusals, upstream errors, 404s, auth's fast lane, health routes), says
 * `X-Content-Type-Options: nosniff`, so a browser never sniffs a JSON body into HTML or script.
 */
let platform: Platform;
let gateway: string;
let worker: RunningApp;
/** Budgets per address in this file's auth: small, so a few attempts show the limit. */
const USER_CODE_MAX_ATTEMPTS = 3;
const LOGIN_ADDRESS_MAX_FAILURES = 3;

beforeAll(async () => {
  platform = await startPlatform({
    authEnv: {
      LOG_LEVEL: 'info',
      USER_CODE_MAX_ATTEMPTS: String(USER_CODE_MAX_ATTEMPTS),
      LOGIN_ADDRESS_MAX_FAILURES: String(LOGIN_ADDRESS_MAX_FAILURES),
      LOGIN_FIRST_LOCK_SECONDS: '600',
    },
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
    [
      'GraphQL (proxied)',
      '/graphql',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' },
      200,
    ],
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

describe("the gateway's log output after a sign-in and the code flow through it", () => {
  it('holds no cookie value, code, state, token or API key, while it logs every one of those requests', async () => {
    const publicUrl = platform.publicUrl;
    const redirectUri = `http://127.0.0.1:${await freePort()}/cb`;
    const { stdout } = await run(
      process.execPath,
      [
        path.resolve(__dirname, '../../apps/auth/dist/cli/main.js'),
        ...[
          'clients:create',
          '--name',
          'log-e2e',
          '--type',
          'confidential',
          '--grant',
          'authorization_code',
          '--grant',
          'refresh_token',
        ],
        ...['--redirect-uri', redirectUri, '--scope', 'content:read offline_access'],
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          ...stackEnv(),
          MONGO_DB: platform.authDb,
          INTERNAL_SECRET,
          PUBLIC_URL: publicUrl,
        },
        timeout: 30_000,
      },
    );
    const created = JSON.parse(stdout) as { client_id: string; client_secret: string };
    const issuer = await Issuer.discover(`${publicUrl}/.well-known/oauth-authorization-server`);
    const client = new issuer.Client({
      client_id: created.client_id,
      client_secret: created.client_secret,
      redirect_uris: [redirectUri],
      response_types: ['code'],
    });
    const account = await registerAccount(publicUrl);

    // Sign-in form, consent, the redirect with the code: all through the gateway.
    const { params, verifier, state, agent, code } = await authorizeCode(
      publicUrl,
      client,
      account,
      'content:read offline_access',
    );
    const tokens = await client.oauthCallback(redirectUri, params, { code_verifier: verifier, state });
    const refreshed = await client.refresh(tokens.refresh_token!);
    const me = await fetch(`${publicUrl}/api/v1/posts?page=1&limit=1`, {
      headers: { authorization: `Bearer ${refreshed.access_token!}` },
    });
    expect(`${me.status} ${await me.text()}`).toMatch(/^200 /);
    await client.revoke(refreshed.refresh_token!, 'refresh_token');
    const apiKey = (await createApiKey(platform.auth.url, account.id)).key;
    // A credential in a query string (as WebSocket clients send one) is logged without its value.
    const keyed = await fetch(`${publicUrl}/v1/models?xi_api_key=${apiKey}`, { headers: { 'xi-api-key': apiKey } });
    expect(`${keyed.status} ${await keyed.text()}`).toMatch(/^200 /);

    const marker = `log-marker-${randomUUID()}`;
    await fetch(`${publicUrl}/jwks`, { headers: { 'x-request-id': marker } });
    const output = () => platform.gateways[0]!.output();
    await eventually(() => output().includes(marker), 10_000);

    const secrets: Record<string, string> = {
      code,
      state,
      'session cookie': agent.cookie('auth_sid')!,
      'csrf cookie': agent.cookie('auth_csrf')!,
      'access token': tokens.access_token!,
      'refresh token': tokens.refresh_token!,
      'refreshed access token': refreshed.access_token!,
      'rotated refresh token': refreshed.refresh_token!,
      'content login token': account.token,
      'API key': apiKey,
      'client secret': created.client_secret,
      password: account.password,
    };
    for (const [name, value] of Object.entries(secrets)) {
      expect(value).toBeTruthy();
      expect({ name, leaked: output().includes(value) }).toEqual({ name, leaked: false });
    }
    // The requests were logged (so the absence above means something): the consent's redirect with
    // its Location, the token call, the sign-in and the keyed request.
    const lines = output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map(
        (l) =>
          JSON.parse(l) as { req?: { url?: string }; res?: { statusCode?: number; headers?: Record<string, unknown> } },
      );
    const redirect =
      lines.find((l) => l.req?.url === '/authorize/decision' && l.res?.statusCode === 303) ??
      lines.find((l) => l.req?.url === '/authorize/decision');
    expect(redirect?.res?.headers?.location).toEqual(expect.stringContaining('code=[redacted]'));
    expect(redirect?.res?.headers?.location).toEqual(expect.stringContaining('state=[redacted]'));
    expect(lines.some((l) => l.req?.url === '/login' && l.res?.headers?.['set-cookie'] === '[redacted]')).toBe(true);
    expect(lines.some((l) => l.req?.url === '/token')).toBe(true);
    expect(lines.some((l) => l.req?.url === '/v1/models?xi_api_key=[redacted]')).toBe(true);
  });
});

/**
 * Last in this file: it spends the loopback address's device-code and sign-in budgets in this auth.
 * `gateway` runs with the default TRUSTED_PROXIES (none); `strict` too, with an anonymous budget of
 * 2 per second; `trusting` has TRUSTED_PROXIES=loopback (the test is its load balancer) and the same budget.
 */
describe('client addresses: X-Forwarded-For only from trusted proxies, and services read the signed one', () => {
  const ANONYMOUS_RPS = 2;
  let strict: RunningApp;
  let trusting: RunningApp;
  let lastBurstEnd = 0;

  beforeAll(async () => {
    const start = async (extra: Record<string, string>) => {
      const port = await freePort();
      return startApp({
        app: 'gateway',
        env: {
          ...platform.gatewayEnv(port),
          RATE_LIMIT_PREFIX: uniqueName('hygrl'),
          PLAN_LIMITS_JSON: JSON.stringify({ anonymous: { rps: ANONYMOUS_RPS, concurrency: 50 } }),
          ...extra,
        },
        readyTimeoutMs: 60_000,
      });
    };
    [strict, trusting] = await Promise.all([start({}), start({ TRUSTED_PROXIES: 'loopback' })]);
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([strict?.stop(), trusting?.stop()]);
  });

  let octet = 0;
  /** A documentation address (RFC 5737) not used before in this file. */
  const freshAddress = () => `203.0.113.${(octet += 1)}`;

  /** Anonymous GraphQL requests in one rate window, each from `addresses[i]` by X-Forwarded-For; the statuses in order. */
  const burst = (via: RunningApp, addresses: string[]) =>
    inOneWindow(
      async () => {
        const statuses: number[] = [];
        for (const address of addresses) {
          const res = await fetch(`${via.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
            body: '{"query":"{__typename}"}',
          });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
        lastBurstEnd = Date.now();
        return statuses;
      },
      // Each attempt on a new window: the last one's budget for these addresses has run out by then.
      { before: () => untilClock(lastBurstEnd + 1100) },
    );

  it('an untrusted client rotating X-Forwarded-For still spends one anonymous budget (its socket address)', async () => {
    const statuses = await burst(strict, Array.from({ length: 6 }, freshAddress));
    expect(statuses.filter((s) => s === 200)).toHaveLength(ANONYMOUS_RPS);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6 - ANONYMOUS_RPS);
  });

  it('with TRUSTED_PROXIES set, the forwarded address is the client: each has its own budget', async () => {
    const one = freshAddress();
    const statuses = await burst(trusting, [one, one, one, freshAddress(), freshAddress(), freshAddress()]);
    expect(statuses).toEqual([200, 200, 429, 200, 200, 200]);
  });

  /** Signs a new account in on `via`'s device page and returns the agent and the entry form's page. */
  async function deviceEntry(via: string) {
    const account = await registerAccount(via);
    const agent = new FormAgent(via);
    const page = await agent.signIn(await agent.follow('/device'), account);
    if (!page.html.includes('action="/device"')) throw new Error(`no device entry form:\n${page.html}`);
    return { agent, page };
  }

  /** Wrong user codes, each sent with the given X-Forwarded-For; the statuses in order. */
  async function wrongCodes(via: string, addresses: string[]): Promise<number[]> {
    const entry = await deviceEntry(via);
    const { agent } = entry;
    let { page } = entry;
    const statuses: number[] = [];
    for (const address of addresses) {
      const res = await agent.request('/device', {
        form: { csrf: FormAgent.field(page.html, 'csrf'), user_code: 'BCDF-GHJK' },
        headers: { 'x-forwarded-for': address },
      });
      const html = await res.text();
      statuses.push(res.status);
      page = { html };
    }
    return statuses;
  }

  it('auth counts wrong device codes against the address the gateway vouches for, not a rotated header', async () => {
    const statuses = await wrongCodes(gateway, Array.from({ length: USER_CODE_MAX_ATTEMPTS + 2 }, freshAddress));
    expect(statuses).toEqual([...Array<number>(USER_CODE_MAX_ATTEMPTS).fill(400), 429, 429]);
  });

  it('behind a trusted proxy, auth counts them per forwarded client address', async () => {
    const one = freshAddress();
    const statuses = await wrongCodes(trusting.url, [
      ...Array<string>(USER_CODE_MAX_ATTEMPTS + 1).fill(one),
      freshAddress(),
    ]);
    expect(statuses).toEqual([...Array<number>(USER_CODE_MAX_ATTEMPTS).fill(400), 429, 400]);
  });

  it("content's sign-in reaches auth's address limit with the signed address, however the header rotates", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_ADDRESS_MAX_FAILURES + 2; i += 1) {
      const res = await fetch(`${gateway}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': freshAddress() },
        body: JSON.stringify({ email: `nobody-${randomUUID()}@example.com`, password: 'wrong password' }),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses.slice(0, LOGIN_ADDRESS_MAX_FAILURES)).toEqual(Array<number>(LOGIN_ADDRESS_MAX_FAILURES).fill(401));
    expect(statuses.slice(LOGIN_ADDRESS_MAX_FAILURES)).toEqual([429, 429]);
  });
});

describe("requests Node's HTTP parser refuses, answered in their interface's shape", () => {
  /** One raw request on its own connection; resolves to the status line, the headers and the body. */
  function raw(request: string): Promise<{ status: number; headers: string; body: string }> {
    const { hostname, port } = new URL(gateway);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => socket.end(request));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [head = '', body = ''] = text.split('\r\n\r\n', 2);
        resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
      });
    });
  }
  const long = 'x'.repeat(20_000);

  it.each([
    ['/authorize', { error: 'invalid_request', error_description: expect.stringContaining('16 KiB') }],
    ['/v1/voices', { detail: { status: 'bad_request', message: expect.stringContaining('16 KiB') } }],
    ['/api/v1/posts', { error: { code: 431, message: expect.stringContaining('16 KiB') } }],
  ])('a request line past 16 KiB at %s: 431 with JSON in that shape, not a bare status line', async (path, shape) => {
    const answer = await raw(`GET ${path}?state=${long} HTTP/1.1\r\nHost: gateway\r\n\r\n`);
    expect(answer.status).toBe(431);
    expect(answer.headers).toContain('content-type: application/json');
    expect(answer.headers).toContain('x-content-type-options: nosniff');
    expect(JSON.parse(answer.body)).toEqual(shape);
  });

  it('something that is not HTTP: 400 with a JSON body', async () => {
    const answer = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.headers).toContain('content-type: application/json');
    expect(JSON.parse(answer.body)).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });
});
