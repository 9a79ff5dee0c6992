import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import { ALL_GRANTS, cli, createUser, FormAgent, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

jest.setTimeout(60_000);

let auth: RunningAuth;
let conf: CreatedClient;
let pub: CreatedClient;
let user: { id: string; email: string; password: string };
let dpop: { privateKey: KeyLike; jwk: JWK; privateJwk: JWK };
const REDIRECT = 'https://app.example/cb';

beforeAll(async () => {
  // Short lifetimes so the tests can wait for expiry.
  // conf is also a resource server for the platform audience, so it may introspect the first-party login's tokens (RFC 7662 §4).
  auth = await startAuth({
    ACCESS_TOKEN_TTL: '2',
    DEVICE_CODE_TTL: '2',
    INTROSPECTION_RESOURCE_SERVERS: 'negative-conf',
  });
  const common = [
    '--scope',
    'content:read speech:read offline_access',
    '--resource',
    auth.issuer,
    '--redirect-uri',
    REDIRECT,
  ];
  conf = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'conf',
    '--client-id',
    'negative-conf',
    '--type',
    'confidential',
    ...ALL_GRANTS.flatMap((g) => ['--grant', g]),
    ...common,
  ]);
  pub = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'pub',
    '--type',
    'public',
    '--grant',
    'authorization_code',
    '--grant',
    'urn:ietf:params:oauth:grant-type:device_code',
    '--grant',
    'refresh_token',
    ...common,
  ]);
  user = await createUser(auth);
  const pair = await generateKeyPair('ES256', { extractable: true });
  dpop = {
    privateKey: pair.privateKey,
    jwk: await exportJWK(pair.publicKey),
    privateJwk: await exportJWK(pair.privateKey),
  };
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

/** Resolves once this machine's clock has passed `atMs`: waiting for an instant the test knows, not for a guess. */
async function clockPasses(atMs: number): Promise<void> {
  while (Date.now() <= atMs) await new Promise((r) => setTimeout(r, atMs + 1 - Date.now()));
}

const basic = () => `Basic ${Buffer.from(`${conf.client_id}:${conf.client_secret}`).toString('base64')}`;

async function token(form: Record<string, string>, headers: Record<string, string> = { authorization: basic() }) {
  const res = await fetch(`${auth.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

async function proof(
  over: { header?: Record<string, unknown>; payload?: Record<string, unknown> } = {},
): Promise<string> {
  return new SignJWT({
    jti: randomUUID(),
    htm: 'POST',
    htu: `${auth.issuer}/token`,
    iat: Math.floor(Date.now() / 1000),
    ...over.payload,
  })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: dpop.jwk, ...over.header } as never)
    .sign(dpop.privateKey);
}

/** Runs the code flow by the forms up to the redirect; returns the redirect URL. */
async function authorize(query: Record<string, string>): Promise<URL> {
  const agent = new FormAgent(auth.issuer);
  const first = await agent.follow(`/authorize?${new URLSearchParams(query).toString()}`);
  if (!first.html) return new URL(first.url);
  const consent = await agent.signIn(first, user);
  return new URL((await agent.decide(consent, '/authorize/decision', 'approve')).url);
}

const VERIFIER = 'v'.repeat(43) + 'erifier-0123456789';
const CHALLENGE = 'h3dTDz4mt3V4CRlpKk1ptVnt5JUyZR-XnsqBD2ZFJ3o'; // not S256(VERIFIER) on purpose for the wrong-verifier case

describe('authorization code negatives', () => {
  it('redirect_uri mismatch and unknown client are shown on a page, never redirected', async () => {
    const queries: Record<string, string>[] = [
      { client_id: conf.client_id, redirect_uri: 'https://evil.example/cb' },
      { client_id: 'nope', redirect_uri: REDIRECT },
      { client_id: conf.client_id },
    ];
    for (const q of queries) {
      const res = await fetch(
        `${auth.issuer}/authorize?${new URLSearchParams({ response_type: 'code', ...q }).toString()}`,
        { redirect: 'manual' },
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
    }
  });

  it('PKCE missing for a public client is redirected as invalid_request with state', async () => {
    const url = await authorize({
      response_type: 'code',
      client_id: pub.client_id,
      redirect_uri: REDIRECT,
      state: 's1',
    });
    expect(url.searchParams.get('error')).toBe('invalid_request');
    expect(url.searchParams.get('state')).toBe('s1');
    expect(url.searchParams.get('iss')).toBe(auth.issuer);
  });

  it('unsupported response_type, invalid_scope and invalid_target are redirected', async () => {
    const base = {
      client_id: conf.client_id,
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    };
    expect((await authorize({ ...base, response_type: 'token' })).searchParams.get('error')).toBe(
      'unsupported_response_type',
    );
    expect((await authorize({ ...base, response_type: 'code', scope: 'admin:all' })).searchParams.get('error')).toBe(
      'invalid_scope',
    );
    expect(
      (await authorize({ ...base, response_type: 'code', resource: 'https://evil.example/' })).searchParams.get(
        'error',
      ),
    ).toBe('invalid_target');
  });

  it('a wrong or missing code_verifier and a wrong redirect_uri fail with invalid_grant', async () => {
    const base = {
      response_type: 'code',
      client_id: conf.client_id,
      redirect_uri: REDIRECT,
      scope: 'content:read',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    };
    const wrong = (await authorize(base)).searchParams.get('code')!;
    expect(
      (await token({ grant_type: 'authorization_code', code: wrong, redirect_uri: REDIRECT, code_verifier: VERIFIER }))
        .body.error,
    ).toBe('invalid_grant');
    const missing = (await authorize(base)).searchParams.get('code')!;
    expect(
      (await token({ grant_type: 'authorization_code', code: missing, redirect_uri: REDIRECT })).body,
    ).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('code_verifier') });
    const badRedirect = (await authorize(base)).searchParams.get('code')!;
    expect(
      (
        await token({
          grant_type: 'authorization_code',
          code: badRedirect,
          redirect_uri: 'https://app.example/other',
          code_verifier: VERIFIER,
        })
      ).body.error,
    ).toBe('invalid_grant');
  });

  it('a forged consent without the CSRF token is refused', async () => {
    const agent = new FormAgent(auth.issuer);
    const consent = await agent.signIn(
      await agent.follow(
        `/authorize?${new URLSearchParams({ response_type: 'code', client_id: conf.client_id, redirect_uri: REDIRECT, scope: 'content:read', code_challenge: CHALLENGE, code_challenge_method: 'S256' }).toString()}`,
      ),
      user,
    );
    const res = await agent.request('/authorize/decision', {
      form: { request: FormAgent.field(consent.html, 'request'), decision: 'approve', csrf: 'forged' },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
  });
});

describe('DPoP proof negatives at /token', () => {
  const cc = { grant_type: 'client_credentials' };
  it('accepts a good proof once and rejects its replay', async () => {
    const p = await proof();
    const ok = await token(cc, { authorization: basic(), dpop: p });
    expect(ok.status).toBe(200);
    expect(ok.body.token_type).toBe('DPoP');
    expect(await token(cc, { authorization: basic(), dpop: p })).toMatchObject({
      status: 400,
      body: { error: 'invalid_dpop_proof' },
    });
  });

  it.each([
    ['wrong htu', { payload: { htu: 'https://elsewhere.example/token' } }],
    ['wrong htm', { payload: { htm: 'GET' } }],
    ['stale iat', { payload: { iat: Math.floor(Date.now() / 1000) - 600 } }],
    ['wrong typ', { header: { typ: 'JWT' } }],
  ])('rejects %s', async (_name, over) => {
    expect(await token(cc, { authorization: basic(), dpop: await proof(over) })).toMatchObject({
      status: 400,
      body: { error: 'invalid_dpop_proof' },
    });
  });

  it('rejects alg none and a private key in jwk', async () => {
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const none = `${enc({ typ: 'dpop+jwt', alg: 'none', jwk: dpop.jwk })}.${enc({ jti: randomUUID(), htm: 'POST', htu: `${auth.issuer}/token`, iat: Math.floor(Date.now() / 1000) })}.`;
    expect((await token(cc, { authorization: basic(), dpop: none })).body.error).toBe('invalid_dpop_proof');
    expect(
      (await token(cc, { authorization: basic(), dpop: await proof({ header: { jwk: dpop.privateJwk } }) })).body.error,
    ).toBe('invalid_dpop_proof');
  });
});

describe('client assertion negatives', () => {
  async function assertion(key: KeyObject | Uint8Array, alg: string, aud: string, jti = randomUUID()) {
    return new SignJWT({})
      .setProtectedHeader({ alg })
      .setIssuer(conf.client_id)
      .setSubject(conf.client_id)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime('1m')
      .setJti(jti)
      .sign(key);
  }
  const form = (a: string) => ({
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: a,
  });

  it('client_secret_jwt works once; the replay and a wrong audience are invalid_client', async () => {
    const secret = new TextEncoder().encode(conf.client_secret!);
    const a = await assertion(secret, 'HS256', `${auth.issuer}/token`);
    expect((await token(form(a), {})).status).toBe(200);
    const replay = await token(form(a), {});
    expect(replay).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const wrongAud = await token(form(await assertion(secret, 'HS256', 'https://other.example/token')), {});
    expect(wrongAud).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    expect((await token(form(await assertion(otherKey, 'ES256', `${auth.issuer}/token`)), {})).status).toBe(401);
  });

  it('two authentication methods at once is invalid_request', async () => {
    expect(
      (await token({ grant_type: 'client_credentials', client_id: conf.client_id, client_secret: conf.client_secret! }))
        .body.error,
    ).toBe('invalid_request');
  });
});

describe('expiry and revocation at introspection', () => {
  const introspect = async (t: string) =>
    (await (
      await fetch(`${auth.issuer}/introspect`, {
        method: 'POST',
        headers: { authorization: basic(), 'content-type': 'application/x-www-form-urlencoded' },
        body: `token=${encodeURIComponent(t)}`,
      })
    ).json()) as Record<string, unknown>;

  it('an expired token becomes {active:false}', async () => {
    const set = await token({ grant_type: 'client_credentials' });
    const at = set.body.access_token as string;
    expect((await introspect(at)).active).toBe(true);
    // Inactive from the second of its `exp` on (auth runs on this machine's clock): wait for that instant, then ask once.
    const { exp } = decodeJwt(at);
    await clockPasses(exp! * 1000);
    expect(await introspect(at)).toEqual({ active: false });
  });

  it('a revoked refresh token and unknown tokens are {active:false}; introspection needs client authentication', async () => {
    const login = (await (
      await auth.internal('/login', { body: { email: user.email, password: user.password } })
    ).json()) as { refresh_token: string };
    expect(await introspect('garbage')).toEqual({ active: false });
    const noAuth = await fetch(`${auth.issuer}/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=x',
    });
    expect(noAuth.status).toBe(401);
    expect((await introspect(login.refresh_token)).active).toBe(true);
    // Issued to the first-party client, so this client may not revoke it.
    const res = await fetch(`${auth.issuer}/revoke`, {
      method: 'POST',
      headers: { authorization: basic(), 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${login.refresh_token}`,
    });
    expect(res.status).toBe(400);
    expect((await introspect(login.refresh_token)).active).toBe(true);
    const unsupported = await fetch(`${auth.issuer}/revoke`, {
      method: 'POST',
      headers: { authorization: basic(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=x&token_type_hint=device_code',
    });
    expect(await unsupported.json()).toMatchObject({ error: 'unsupported_token_type' });
  });
});

describe('device flow negatives', () => {
  it('slow_down when polling too fast, then expired_token', async () => {
    const start = (await (
      await fetch(`${auth.issuer}/device_authorization`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `client_id=${pub.client_id}`,
      })
    ).json()) as { device_code: string; interval: number; expires_in: number };
    // The code was created before this answer arrived, so it has expired by this instant at the latest.
    const expiredBy = Date.now() + start.expires_in * 1000;
    const poll = () =>
      token(
        {
          grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
          device_code: start.device_code,
          client_id: pub.client_id,
        },
        {},
      );
    expect((await poll()).body.error).toBe('authorization_pending');
    expect((await poll()).body).toMatchObject({
      error: 'slow_down',
      error_description: expect.stringContaining(`${start.interval + 5}`),
    });
    await clockPasses(expiredBy);
    expect((await poll()).body.error).toBe('expired_token');
  });

  it('wrong user codes are rate-limited per address', async () => {
    const agent = new FormAgent(auth.issuer);
    const entry = await agent.signIn(await agent.follow('/device'), user);
    const csrf = FormAgent.field(entry.html, 'csrf');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await agent.request('/device', { form: { csrf, user_code: 'BBBB-BBBB' } })).status);
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

describe('malformed and oversized input', () => {
  it('never answers 500', async () => {
    const post = (path: string, body: string, type = 'application/x-www-form-urlencoded') =>
      fetch(`${auth.issuer}${path}`, {
        method: 'POST',
        headers: { 'content-type': type, authorization: basic() },
        body,
      });
    const cases: [string, string, string?][] = [
      ['/token', 'a'.repeat(20_000)],
      ['/token', Array.from({ length: 100 }, (_, i) => `p${i}=1`).join('&')],
      ['/token', '%%%&&&=='],
      ['/token', 'grant_type=client_credentials&grant_type=client_credentials'],
      ['/token', 'grant_type=nope'],
      ['/token', '{"grant_type":"client_credentials"}', 'application/json'],
      ['/revoke', ''],
      ['/introspect', 'token[]=1&token[]=2'],
      ['/device_authorization', 'client_id=' + 'x'.repeat(5000)],
      ['/login', 'email=a'],
    ];
    for (const [path, body, type] of cases) {
      const res = await post(path, body, type);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    expect((await post('/token', 'a'.repeat(20_000))).status).toBe(413);
    expect(await (await post('/token', 'grant_type=nope')).json()).toMatchObject({ error: 'unsupported_grant_type' });
  });
});
