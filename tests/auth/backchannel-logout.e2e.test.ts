import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type * as OpenIdClient from 'openid-client-6' with { 'resolution-mode': 'import' };
import { connectMongo } from '@platform/stores';
import { eventually, freePort, scrapeMetrics, stackEnv, sumOf } from '@platform/testing';
import { cli, createUser, FormAgent, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

/**
 * OpenID Connect Back-Channel Logout 1.0 with a relying party the test runs: it signs in with
 * openid-client 6, and its back-channel endpoint receives the logout tokens, which the test verifies
 * against the server's JWKS with jose, as an RP does (§2.6). Stands in for the conformance suite's
 * back-channel logout modules (docs/auth.md, "Back-channel logout").
 */
jest.setTimeout(120_000);

const REDIRECT = 'https://rp.example/callback';
const SCOPE = 'openid profile';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

let oidc: typeof OpenIdClient;
beforeAll(async () => {
  oidc = await import('openid-client-6');
});

/** An RP's back-channel logout endpoint: keeps every `logout_token` it is sent; `answer` decides the status. */
interface RelyingParty {
  url: string;
  tokens: string[];
  /** The form each token came in (§2.5: `logout_token` and nothing else). */
  forms: URLSearchParams[];
  /** TCP connections accepted, whatever came over them. */
  connections: number;
  answer: () => number;
  close(): Promise<void>;
}

async function relyingParty(port = 0): Promise<RelyingParty> {
  const rp: RelyingParty = {
    url: '',
    tokens: [],
    forms: [],
    connections: 0,
    answer: () => 200,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const status = rp.answer();
      if (
        req.method === 'POST' &&
        req.url === '/backchannel-logout' &&
        req.headers['content-type'] === 'application/x-www-form-urlencoded' &&
        status === 200
      ) {
        rp.forms.push(new URLSearchParams(body));
        rp.tokens.push(new URLSearchParams(body).get('logout_token') ?? '');
      }
      res.writeHead(status, { 'cache-control': 'no-store' }).end();
    });
  });
  server.on('connection', () => rp.connections++);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  rp.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/backchannel-logout`;
  rp.close = () => new Promise((resolve) => server.close(() => resolve()));
  return rp;
}

async function registerRp(auth: RunningAuth, backchannelUri: string): Promise<CreatedClient> {
  return cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Back-channel RP',
    '--type',
    'confidential',
    '--grant',
    'authorization_code',
    '--redirect-uri',
    REDIRECT,
    '--scope',
    SCOPE,
    '--backchannel-logout-uri',
    backchannelUri,
  ]);
}

/** Signs `user` in through openid-client 6's code flow (PKCE, nonce); the agent keeps the sign-in session. */
async function signIn(auth: RunningAuth, client: CreatedClient, user: { email: string; password: string }) {
  const config = await oidc.discovery(new URL(auth.issuer), client.client_id, client.client_secret, undefined, {
    execute: [oidc.allowInsecureRequests],
  });
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: SCOPE,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
  });
  const agent = new FormAgent(auth.issuer);
  const consent = await agent.signIn(await agent.follow(url.href), user);
  const back = await agent.decide(consent, '/authorize/decision', 'approve');
  const tokens = await oidc.authorizationCodeGrant(config, new URL(back.url), {
    pkceCodeVerifier: verifier,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  return { agent, config, idToken: tokens.claims()! };
}

async function signOut(agent: FormAgent): Promise<void> {
  const confirm = await agent.follow('/logout');
  const done = await agent.request('/logout', { form: { csrf: FormAgent.field(confirm.html, 'csrf') } });
  expect(done.status).toBe(200);
}

/** What an RP checks of a logout token (§2.6), with the server's JWKS; the verified claims. */
async function verifyLogoutToken(auth: RunningAuth, token: string, clientId: string): Promise<JWTPayload> {
  expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', typ: 'logout+jwt' });
  const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${auth.issuer}/jwks`)), {
    issuer: auth.issuer,
    audience: clientId,
    typ: 'logout+jwt',
    maxTokenAge: '2m',
  });
  expect(payload.events).toEqual({ [EVENT]: {} });
  expect(payload).not.toHaveProperty('nonce');
  expect(typeof payload.jti).toBe('string');
  expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(120);
  return payload;
}

/** The auth database's outbox of logouts (backchannel-logout/logout-delivery-model.ts). */
async function outbox(db: string): Promise<{
  docs(): Promise<{ attempts: number; state: string; lastError?: string | null }[]>;
  close(): Promise<void>;
}> {
  const conn = await connectMongo(stackEnv().MONGO_URL, db);
  return {
    docs: () => conn.collection('backchannel_logouts').find({}).toArray() as never,
    close: () => conn.close(),
  };
}

describe('with an RP on loopback (BACKCHANNEL_LOGOUT_ALLOW_PRIVATE=true)', () => {
  let auth: RunningAuth;
  let rp: RelyingParty;
  let client: CreatedClient;
  let metricsUrl: string;

  beforeAll(async () => {
    rp = await relyingParty();
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}`;
    auth = await startAuth({ BACKCHANNEL_LOGOUT_ALLOW_PRIVATE: 'true', METRICS_PORT: String(metricsPort) });
    client = await registerRp(auth, rp.url);
  }, 120_000);

  afterAll(async () => {
    await auth?.stop();
    await rp?.close();
  });

  it('discovery advertises back-channel logout with sessions; the ID token of a client that takes logout tokens carries sid', async () => {
    const user = await createUser(auth);
    const { config, idToken } = await signIn(auth, client, user);
    expect(config.serverMetadata()).toMatchObject({
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
    });
    expect(config.serverMetadata().claims_supported).toContain('sid');
    expect(idToken.sid).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('RP-initiated sign-out: the RP receives one logout token for the session (sub and sid of its ID token), verified against the JWKS', async () => {
    const user = await createUser(auth);
    const { agent, idToken } = await signIn(auth, client, user);
    const before = rp.tokens.length;
    await signOut(agent);
    await eventually(() => rp.tokens.length > before, 30_000);
    expect([...rp.forms[before]!.keys()]).toEqual(['logout_token']);
    const claims = await verifyLogoutToken(auth, rp.tokens[before]!, client.client_id);
    expect(claims).toMatchObject({ sub: user.id, sid: idToken.sid });
  });

  it('suspension of the account: the RP of its session receives a logout token for it', async () => {
    const user = await createUser(auth);
    const { idToken } = await signIn(auth, client, user);
    const before = rp.tokens.length;
    expect(
      (await auth.internal(`/accounts/${user.id}`, { method: 'PATCH', body: { status: 'disabled' } })).status,
    ).toBe(200);
    await eventually(() => rp.tokens.length > before, 30_000);
    const claims = await verifyLogoutToken(auth, rp.tokens[before]!, client.client_id);
    expect(claims).toMatchObject({ sub: user.id, sid: idToken.sid });
  });

  it('an RP answering 503 gets the token again after a backoff; the metrics count the retry and the delivery', async () => {
    const user = await createUser(auth);
    const { agent } = await signIn(auth, client, user);
    const read = async () => {
      const samples = await scrapeMetrics(metricsUrl);
      return {
        retried: sumOf(samples, 'auth_backchannel_logout_deliveries_total', { result: 'retried' }),
        delivered: sumOf(samples, 'auth_backchannel_logout_deliveries_total', { result: 'delivered' }),
      };
    };
    // Every token the RP took so far was one delivery (it answered 200): wait until the last is counted.
    await eventually(async () => (await read()).delivered === rp.tokens.length, 10_000);
    const start = await read();
    let calls = 0;
    rp.answer = () => (++calls === 1 ? 503 : 200);
    try {
      const before = rp.tokens.length;
      await signOut(agent);
      await eventually(() => rp.tokens.length > before, 30_000);
      expect(calls).toBe(2);
      expect((await verifyLogoutToken(auth, rp.tokens[before]!, client.client_id)).sub).toBe(user.id);
      await eventually(async () => (await read()).delivered === rp.tokens.length, 10_000);
      const end = await read();
      expect([end.retried - start.retried, end.delivered - start.delivered]).toEqual([1, 1]);
    } finally {
      rp.answer = () => 200;
    }
  });

  it('the administration API registers, refuses, changes and removes a backchannel_logout_uri', async () => {
    const robot = await cli<CreatedClient>(auth, [
      'clients:create',
      '--name',
      'Automation',
      '--type',
      'confidential',
      '--grant',
      'client_credentials',
      '--scope',
      'admin',
    ]);
    const tokenRes = await fetch(`${auth.url}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${robot.client_id}:${robot.client_secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials&scope=admin',
    });
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    const admin = async (method: string, route: string, body: unknown) => {
      const res = await fetch(`${auth.url}/admin${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const registration = {
      name: 'API RP',
      type: 'confidential',
      grant_types: ['authorization_code'],
      redirect_uris: [REDIRECT],
    };
    expect(
      await admin('POST', '/clients', { ...registration, backchannel_logout_uri: 'http://rp.example/logout' }),
    ).toEqual({
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: expect.stringMatching(/^backchannel_logout_uri: must be an https URL/),
      },
    });
    const created = await admin('POST', '/clients', {
      ...registration,
      backchannel_logout_uri: 'https://rp.example/logout',
      backchannel_logout_session_required: true,
    });
    expect(created).toMatchObject({
      status: 201,
      body: { backchannel_logout_uri: 'https://rp.example/logout', backchannel_logout_session_required: true },
    });
    const id = created.body.client_id as string;
    expect(
      await admin('PATCH', `/clients/${id}`, { backchannel_logout_uri: 'https://rp.example/logout#x' }),
    ).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: 'backchannel_logout_uri: must not have a fragment' },
    });
    const removed = await admin('PATCH', `/clients/${id}`, { backchannel_logout_uri: null });
    expect(removed.status).toBe(200);
    expect(removed.body).not.toHaveProperty('backchannel_logout_uri');
  });

  it('refuses a plain http backchannel_logout_uri on a host that is not loopback, and one with a fragment', async () => {
    await expect(registerRp(auth, 'http://rp.example/logout')).rejects.toThrow(
      /backchannel_logout_uri: must be an https URL/,
    );
    await expect(registerRp(auth, 'https://rp.example/logout#x')).rejects.toThrow(
      /backchannel_logout_uri: must not have a fragment/,
    );
  });
});

it('an RP that is down receives the logout token once it is up, across a restart of auth (the outbox is durable)', async () => {
  const rpPort = await freePort();
  let auth = await startAuth({ BACKCHANNEL_LOGOUT_ALLOW_PRIVATE: 'true' });
  const db = auth.db;
  const store = await outbox(db);
  let rp: RelyingParty | undefined;
  try {
    const client = await registerRp(auth, `http://127.0.0.1:${rpPort}/backchannel-logout`);
    const user = await createUser(auth);
    const { agent } = await signIn(auth, client, user);
    await signOut(agent);
    // Nothing listens yet: the delivery fails and is retried with a growing wait.
    await eventually(async () => (await store.docs()).some((d) => d.attempts >= 2 && d.state === 'pending'), 30_000);
    await auth.stop();
    rp = await relyingParty(rpPort);
    auth = await startAuth({ BACKCHANNEL_LOGOUT_ALLOW_PRIVATE: 'true', MONGO_DB: db });
    await eventually(() => rp!.tokens.length > 0, 60_000);
    expect(rp.tokens).toHaveLength(1);
    const claims = await verifyLogoutToken(auth, rp.tokens[0]!, client.client_id);
    expect(claims.sub).toBe(user.id);
    await eventually(async () => (await store.docs()).length === 0, 10_000);
  } finally {
    await auth.stop();
    await rp?.close();
    await store.close();
  }
});

it('by default, a logout token is never sent to a private address: the delivery fails at once without a connection', async () => {
  const auth = await startAuth();
  const store = await outbox(auth.db);
  const rp = await relyingParty();
  const port = new URL(rp.url).port;
  try {
    // https on a loopback address is accepted at registration (the address is checked where it is resolved: at delivery).
    const client = await registerRp(auth, `https://127.0.0.1:${port}/backchannel-logout`);
    const user = await createUser(auth);
    const { agent } = await signIn(auth, client, user);
    await signOut(agent);
    await eventually(async () => (await store.docs()).some((d) => d.state === 'failed'), 30_000);
    expect(await store.docs()).toEqual([
      expect.objectContaining({ state: 'failed', attempts: 1, lastError: 'private address' }),
    ]);
    expect(rp.connections).toBe(0);
  } finally {
    await auth.stop();
    await rp.close();
    await store.close();
  }
});
