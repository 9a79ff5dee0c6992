import { createHash, randomBytes } from 'node:crypto';
import { authOpenApi } from '@platform/api-docs';
import { ALL_GRANTS, cli, createUser, FormAgent, type CreatedClient } from '../auth/helpers/fixtures';
import { startAuth, type RunningAuth } from '../auth/helpers/start-auth';
import type { components } from '../support/api-types/auth';
import { watchResponses, type ResponseWatch } from './watch-responses';

type Schemas = components['schemas'];

/**
 * The authorization server's OpenAPI document (`/openapi/auth.json`) against auth running as a process:
 * every operation is called with fetch (the token endpoint per grant, the pages by a form-filling agent,
 * the administration API), on its success path and its error paths, and every response is validated
 * against the document. The last test checks that no operation of the document was left uncalled.
 */
jest.setTimeout(120_000);

const REDIRECT = 'https://app.example/callback';
const SIGNED_OUT = 'https://app.example/signed-out';
const REGISTRATION_LIMIT = 15;
let auth: RunningAuth;
let watch: ResponseWatch;
let web: CreatedClient;
let robot: CreatedClient;
let user: { id: string; email: string; password: string };

const basic = (client: CreatedClient) =>
  `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;

async function form(
  path: string,
  fields: Record<string, string>,
  client: CreatedClient | null = web,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${auth.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(client ? { authorization: basic(client) } : {}),
    },
    body: new URLSearchParams(fields).toString(),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A JSON call to the registration endpoints (RFC 7591, RFC 7592) with a Bearer token. */
async function registration(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`${auth.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function robotToken(scope: string): Promise<string> {
  const answer = await form('/token', { grant_type: 'client_credentials', scope }, robot);
  expect(answer.status).toBe(200);
  return (answer.body as Schemas['TokenResponse']).access_token;
}

async function admin(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${auth.url}/admin${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The code flow by the pages, as a browser would: sign in, consent, back to the client with a code. */
async function authorizationCode(scope: string): Promise<{ code: string; verifier: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: web.client_id,
    redirect_uri: REDIRECT,
    scope,
    state: 's1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const agent = new FormAgent(auth.url);
  const consent = await agent.signIn(await agent.follow(`/authorize?${query.toString()}`), user);
  const done = await agent.decide(consent, '/authorize/decision', 'approve');
  const code = new URL(done.url).searchParams.get('code');
  if (!code) throw new Error(`no code in ${done.url}`);
  return { code, verifier };
}

beforeAll(async () => {
  // A small registration limit, so the last registration test can reach its 429.
  auth = await startAuth({ REGISTRATION_RATE_LIMIT: String(REGISTRATION_LIMIT) });
  web = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Contract web app',
    '--type',
    'confidential',
    ...ALL_GRANTS.flatMap((grant) => ['--grant', grant]),
    '--redirect-uri',
    REDIRECT,
    '--post-logout-redirect-uri',
    SIGNED_OUT,
    '--scope',
    'openid profile email offline_access content:read speech:read',
  ]);
  robot = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Contract robot',
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    '--scope',
    'admin speech:read',
  ]);
  user = await createUser(auth);
  watch = watchResponses(auth.url, authOpenApi());
}, 120_000);

afterAll(async () => {
  watch?.stop();
  await auth?.stop();
});

afterEach(() => {
  const problems = watch.problems.splice(0);
  expect(problems).toEqual([]);
});

describe('discovery', () => {
  it('serves RFC 8414 and OpenID metadata and the key set', async () => {
    const metadata = (await (
      await fetch(`${auth.url}/.well-known/oauth-authorization-server`)
    ).json()) as Schemas['ServerMetadata'];
    expect(metadata.issuer).toBe(auth.issuer);
    expect(metadata.grant_types_supported.sort()).toEqual([...ALL_GRANTS].sort());
    const openid = (await (
      await fetch(`${auth.url}/.well-known/openid-configuration`)
    ).json()) as Schemas['OpenIDConfiguration'];
    expect(openid.userinfo_endpoint).toBe(`${auth.issuer}/userinfo`);
    // Every endpoint discovery advertises is described by the document.
    const documented = Object.keys(authOpenApi().paths ?? {});
    const advertised = Object.entries(openid)
      .filter(([name]) => name.endsWith('_endpoint') || name === 'jwks_uri')
      .map(([, url]) => new URL(String(url)).pathname);
    expect(advertised.filter((path) => !documented.includes(path))).toEqual([]);
    expect(advertised).toEqual(expect.arrayContaining(['/par', '/register']));
    const jwks = await fetch(`${auth.url}/jwks`);
    expect(jwks.headers.get('content-type')).toMatch(/^application\/jwk-set\+json/);
    expect(((await jwks.json()) as Schemas['JWKSet']).keys.length).toBeGreaterThan(0);
  });
});

describe('the token endpoint, every grant', () => {
  it('authorization code (by the pages) with PKCE, then refresh; userinfo with the token', async () => {
    const { code, verifier } = await authorizationCode('openid profile email offline_access content:read');
    const tokens = await form('/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({
      token_type: 'Bearer',
      id_token: expect.any(String),
      refresh_token: expect.any(String),
    });

    const refreshed = await form('/token', {
      grant_type: 'refresh_token',
      refresh_token: (tokens.body as Schemas['TokenResponse']).refresh_token!,
    });
    expect(refreshed.status).toBe(200);
    const access = (refreshed.body as Schemas['TokenResponse']).access_token;
    for (const method of ['GET', 'POST']) {
      const info = await fetch(`${auth.url}/userinfo`, { method, headers: { authorization: `Bearer ${access}` } });
      expect(info.status).toBe(200);
      expect(await info.json()).toMatchObject({ sub: user.id, email: user.email });
    }
    const refused = await fetch(`${auth.url}/userinfo`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    // A code used twice (RFC 6749 §4.1.2): refused, and what it issued is revoked, so this comes last.
    expect(
      (
        await form('/token', {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
        })
      ).body.error,
    ).toBe('invalid_grant');
  });

  it('client credentials; refusals: unknown client 401, unsupported grant, missing parameters, a scope not registered', async () => {
    expect((await form('/token', { grant_type: 'client_credentials', scope: 'speech:read' })).status).toBe(200);
    expect(
      (await form('/token', { grant_type: 'client_credentials' }, { client_id: 'nobody', client_secret: 'nothing' }))
        .status,
    ).toBe(401);
    expect((await form('/token', { grant_type: 'password', username: 'u', password: 'p' })).body.error).toBe(
      'unsupported_grant_type',
    );
    expect((await form('/token', {})).body.error).toBe('invalid_request');
    expect((await form('/token', { grant_type: 'client_credentials', scope: 'admin' })).body.error).toBe(
      'invalid_scope',
    );
  });

  it('device authorization: codes, pending while the person has not approved, tokens once approved', async () => {
    const started = await form('/device_authorization', { scope: 'speech:read' });
    expect(started.status).toBe(200);
    const device = started.body as Schemas['DeviceAuthorization'];
    const deviceCode = device.device_code;
    // Polled once before the approval by another device code: a second poll of the same one inside its interval would be slow_down.
    const other = await form('/device_authorization', { scope: 'speech:read' });
    const pending = await form('/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: other.body.device_code as string,
    });
    expect(pending.body.error).toBe('authorization_pending');

    const agent = new FormAgent(auth.url);
    const entry = await agent.signIn(await agent.follow(device.verification_uri_complete), user);
    const confirm = await agent.follow('/device', {
      form: { csrf: FormAgent.field(entry.html, 'csrf'), user_code: device.user_code },
    });
    expect(confirm.html).toContain('action="/device/decision"');
    const done = await agent.decide(confirm, '/device/decision', 'approve');
    expect(done.res.status).toBe(200);
    expect(
      await form('/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode }),
    ).toMatchObject({ status: 200, body: { access_token: expect.any(String) } });
    expect((await form('/device_authorization', { scope: 'speech:read' }, null)).status).toBe(401);
  });

  it('JWT bearer and token exchange refuse what they cannot accept, in the OAuth shape', async () => {
    const assertion = await form('/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: 'not.a.jwt',
    });
    expect(assertion.status).toBe(400);
    expect(assertion.body.error).toBe('invalid_grant');
    const exchange = await form('/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: 'not-a-token',
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    });
    expect(exchange.status).toBe(400);
  });
});

describe('tokens: introspection and revocation', () => {
  it('introspects an active token, then revokes it; an unknown hint and a client without credentials are refused', async () => {
    const token = (
      (await form('/token', { grant_type: 'client_credentials', scope: 'speech:read' }))
        .body as Schemas['TokenResponse']
    ).access_token;
    const active = await form('/introspect', { token });
    expect(active.body).toMatchObject({ active: true, client_id: web.client_id, token_type: 'Bearer' });
    expect((await form('/revoke', { token, token_type_hint: 'access_token' })).status).toBe(200);
    expect((await form('/introspect', { token })).body).toEqual({ active: false });
    expect((await form('/revoke', { token, token_type_hint: 'id_token' })).body.error).toBe('unsupported_token_type');
    expect((await form('/introspect', { token }, null)).status).toBe(401);
    expect((await form('/revoke', {})).body.error).toBe('invalid_request');
  });

  it('answers introspection as a signed JWT when asked (RFC 9701)', async () => {
    const token = (
      (await form('/token', { grant_type: 'client_credentials', scope: 'speech:read' }))
        .body as Schemas['TokenResponse']
    ).access_token;
    const res = await fetch(`${auth.url}/introspect`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/token-introspection+jwt',
        authorization: basic(web),
      },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/token-introspection\+jwt/);
    const [header, payload] = (await res.text())
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>);
    expect(header).toMatchObject({ typ: 'token-introspection+jwt', alg: 'ES256' });
    expect(payload).toMatchObject({
      iss: auth.issuer,
      aud: web.client_id,
      token_introspection: { active: true, client_id: web.client_id },
    });
  });
});

describe('pushed authorization requests (RFC 9126)', () => {
  it('pushes a request, /authorize takes its request_uri once; refusals in the OAuth shape', async () => {
    const { verifier, challenge } = pkce();
    const request = {
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'par',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const pushed = await form('/par', request);
    expect(pushed.status).toBe(201);
    const { request_uri: requestUri, expires_in: expiresIn } = pushed.body as Schemas['PushedAuthorizationResponse'];
    expect(requestUri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(expiresIn).toBeGreaterThan(0);

    const authorize = `${auth.url}/authorize?${new URLSearchParams({ client_id: web.client_id, request_uri: requestUri }).toString()}`;
    const agent = new FormAgent(auth.url);
    const consent = await agent.signIn(await agent.follow(authorize), user);
    const done = new URL((await agent.decide(consent, '/authorize/decision', 'approve')).url);
    expect(done.searchParams.get('state')).toBe('par');
    const tokens = await form('/token', {
      grant_type: 'authorization_code',
      code: done.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(tokens).toMatchObject({ status: 200, body: { id_token: expect.any(String) } });
    // One-time (RFC 9126 §4): the second use is refused.
    const again = await fetch(authorize, { redirect: 'manual' });
    expect(again.status).toBe(400);
    expect(await again.text()).toMatch(/request_uri/);

    const { redirect_uri: _left, ...noRedirect } = request;
    expect(await form('/par', noRedirect)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await form('/par', { ...request, request_uri: requestUri })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    expect(await form('/par', { ...request, request: 'not.a.jwt' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request_object' },
    });
    expect(await form('/par', request, { client_id: web.client_id, client_secret: 'wrong' })).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
  });
});

describe('dynamic client registration (RFC 7591, RFC 7592)', () => {
  const metadata = {
    client_name: 'Registered in contract test',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'openid profile',
    backchannel_logout_uri: 'https://app.example/backchannel',
  };

  it('initial access tokens: minted and deleted through the administration API; refusals', async () => {
    const token = await robotToken('admin');
    const minted = await admin('POST', '/registration-tokens', token, { expires_in: 600, max_uses: 1 });
    expect(minted.status).toBe(201);
    const { id, initial_access_token: initial } = minted.body as Schemas['InitialAccessToken'];
    expect(minted.body).toMatchObject({ max_uses: 1, expires_at: expect.any(String) });
    expect(await admin('POST', '/registration-tokens', token, { expires_in: 5 })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    expect((await admin('POST', '/registration-tokens', await robotToken('speech:read'), {})).status).toBe(403);
    expect((await admin('DELETE', `/registration-tokens/${id}`, token)).body).toEqual({ id, deleted: true });
    expect((await admin('DELETE', `/registration-tokens/${id}`, token)).status).toBe(404);
    // Deleted: it registers nothing more.
    expect(await registration('POST', '/register', initial, metadata)).toMatchObject({
      status: 401,
      body: { error: 'invalid_token' },
    });
  });

  it('registers, reads, replaces and deletes a client; each refusal in RFC 7591 §3.2.2 or RFC 6750 §3.1 words', async () => {
    const minted = await admin('POST', '/registration-tokens', await robotToken('admin'), { max_uses: 1 });
    const initial = (minted.body as Schemas['InitialAccessToken']).initial_access_token;

    const anonymous = await registration('POST', '/register', null, metadata);
    expect(anonymous).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(
      await registration('POST', '/register', initial, { ...metadata, software_statement: 'eyJ.e30.sig' }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_software_statement' } });
    expect(
      await registration('POST', '/register', initial, { ...metadata, redirect_uris: ['javascript:alert(1)'] }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
    expect(await registration('POST', '/register', initial, { ...metadata, grant_types: ['password'] })).toMatchObject({
      status: 400,
      body: { error: 'invalid_client_metadata' },
    });

    // The refusals spent no use of the single-use token.
    const created = await registration('POST', '/register', initial, metadata);
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const client = created.body as Schemas['ClientInformation'];
    expect(client).toMatchObject({
      client_name: metadata.client_name,
      token_endpoint_auth_method: 'client_secret_basic',
      client_secret: expect.any(String),
      backchannel_logout_uri: metadata.backchannel_logout_uri,
    });
    expect(new URL(client.registration_client_uri).pathname).toBe(`/register/${client.client_id}`);
    expect(await registration('POST', '/register', initial, metadata)).toMatchObject({
      status: 401,
      body: { error: 'invalid_token' },
    });

    const path = `/register/${client.client_id}`;
    const read = await registration('GET', path, client.registration_access_token);
    expect(read.status).toBe(200);
    const readToken = (read.body as Schemas['ClientInformation']).registration_access_token;
    expect(read.body.client_secret).toBeUndefined();
    // Rotated (RFC 7592 §3): the token used stops working.
    expect(await registration('GET', path, client.registration_access_token)).toMatchObject({
      status: 401,
      body: { error: 'invalid_token' },
    });

    expect(await registration('PUT', path, readToken, { ...metadata, client_id: 'someone-else' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_client_metadata' },
    });
    const replaced = await registration('PUT', path, readToken, {
      ...metadata,
      client_id: client.client_id,
      client_name: 'Replaced',
    });
    expect(replaced).toMatchObject({ status: 200, body: { client_id: client.client_id, client_name: 'Replaced' } });

    const deleted = await registration(
      'DELETE',
      path,
      (replaced.body as Schemas['ClientInformation']).registration_access_token,
    );
    expect(deleted.status).toBe(204);
    expect((await admin('GET', `/clients/${client.client_id}`, await robotToken('admin'))).status).toBe(404);
    expect(
      await registration('DELETE', path, (replaced.body as Schemas['ClientInformation']).registration_access_token),
    ).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  });

  it('limits requests per address: 429 temporarily_unavailable with Retry-After', async () => {
    // The limit counts per minute: within at most three windows' worth of requests one must be refused.
    let limited: Awaited<ReturnType<typeof registration>> | undefined;
    for (let i = 0; i < 3 * REGISTRATION_LIMIT && !limited; i += 1) {
      const answer = await registration('GET', '/register/nobody', 'rat_unknown');
      if (answer.status === 429) limited = answer;
      else expect(answer).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    }
    expect(limited).toMatchObject({ status: 429, body: { error: 'temporarily_unavailable' } });
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('pages', () => {
  it('sign-in page, a failed sign-in, RP-initiated logout (confirm page, then back to the client)', async () => {
    const agent = new FormAgent(auth.url);
    const login = await agent.follow('/login');
    expect(login.res.status).toBe(200);
    const failed = await agent.follow('/login', {
      form: { csrf: FormAgent.field(login.html, 'csrf'), email: user.email, password: 'wrong password' },
    });
    expect(failed.res.status).toBe(401);
    await agent.signIn(await agent.follow('/login'), user);
    const confirm = await agent.follow(
      `/logout?${new URLSearchParams({ client_id: web.client_id, post_logout_redirect_uri: SIGNED_OUT, state: 'bye' }).toString()}`,
    );
    expect(confirm.res.status).toBe(200);
    const out = await agent.follow('/logout', {
      form: {
        csrf: FormAgent.field(confirm.html, 'csrf'),
        client_id: web.client_id,
        post_logout_redirect_uri: SIGNED_OUT,
        state: 'bye',
      },
    });
    expect(out.url).toBe(`${SIGNED_OUT}?state=bye`);
    const unknownClient = await fetch(`${auth.url}/authorize?response_type=code&client_id=nobody`, {
      redirect: 'manual',
    });
    expect(unknownClient.status).toBe(400);
    expect(unknownClient.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('administration', () => {
  it('clients: register, list, read, change, rotate the secret, delete; refusals', async () => {
    const token = await robotToken('admin');
    const created = await admin('POST', '/clients', token, {
      name: 'Made in contract test',
      type: 'confidential',
      grant_types: ['client_credentials'],
      scopes: ['speech:read'],
    });
    expect(created.status).toBe(201);
    const id = (created.body as Schemas['RegisteredClient']).client_id;
    expect(created.body.client_secret).toEqual(expect.any(String));
    expect((await admin('GET', '/clients?limit=1', token)).body).toMatchObject({
      items: [expect.any(Object)],
      next_cursor: expect.any(String),
    });
    expect((await admin('GET', `/clients/${id}`, token)).body.name).toBe('Made in contract test');
    expect((await admin('PATCH', `/clients/${id}`, token, { name: 'Renamed' })).body.name).toBe('Renamed');
    expect((await admin('PATCH', `/clients/${id}`, token, {})).status).toBe(400);
    expect((await admin('POST', `/clients/${id}/secret`, token)).body.client_secret).toEqual(expect.any(String));
    expect((await admin('DELETE', `/clients/${id}`, token)).body).toMatchObject({ client_id: id, deleted: true });
    expect((await admin('GET', `/clients/${id}`, token)).status).toBe(404);
    expect(
      (
        await admin('POST', '/clients', token, {
          name: 'Duplicate',
          type: 'public',
          grant_types: ['authorization_code'],
          client_id: robot.client_id,
        })
      ).status,
    ).toBe(409);
    // A key set is public JSON Web Keys (RFC 7517): a member name MongoDB cannot store, a private member, a key without kty are refused.
    for (const key of [
      { kty: 'EC', 'bad\u0000name': 'x' },
      { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'private' },
      { crv: 'P-256' },
      { kty: 'EC', x5c: [{ nested: 1 }] },
    ]) {
      const refused = await admin('POST', '/clients', token, {
        name: 'Bad keys',
        type: 'confidential',
        grant_types: ['client_credentials'],
        secret: false,
        jwks: { keys: [key] },
      });
      expect(refused).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: expect.stringMatching(/^jwks\.keys\.0/) },
      });
    }
    expect((await admin('GET', '/clients', null)).status).toBe(401);
    expect((await admin('GET', '/clients', await robotToken('speech:read'))).status).toBe(403);
  });

  it('accounts: list by email, read, change the plan, unlock', async () => {
    const token = await robotToken('admin');
    const listed = await admin('GET', `/accounts?email=${encodeURIComponent(user.email)}`, token);
    expect((listed.body as Schemas['AccountPage']).items.map((account) => account.id)).toEqual([user.id]);
    expect((await admin('GET', `/accounts/${user.id}`, token)).body.email).toBe(user.email);
    expect((await admin('PATCH', `/accounts/${user.id}`, token, { plan: 'pro' })).body.plan).toBe('pro');
    expect((await admin('POST', `/accounts/${user.id}/unlock`, token)).body).toEqual({ cleared: expect.any(Number) });
    expect((await admin('PATCH', `/accounts/${user.id}`, token, { email: 'not@allowed.example' })).status).toBe(400);
  });

  it('signing keys: list, rotate, retire the previous one (the current one is a conflict); the audit log', async () => {
    const token = await robotToken('admin');
    const before = ((await admin('GET', '/keys', token)).body as Schemas['SigningKeys']).items;
    const current = before.find((key) => key.status === 'current')!.kid;
    const rotated = await admin('POST', '/keys/rotate', token);
    expect(rotated.status).toBe(200);
    expect((await admin('POST', `/keys/${(rotated.body as Schemas['RotatedKey']).current}/retire`, token)).status).toBe(
      409,
    );
    const audit = await admin('GET', '/audit?limit=5', token);
    expect((audit.body as Schemas['AuditPage']).items[0]!.action).toBe('signing_key.rotate');
    // Last: the token in hand was signed by the key retired here.
    expect((await admin('POST', `/keys/${current}/retire`, token)).body).toEqual({ kid: current, retired: true });
  });
});

describe('the document', () => {
  it('had every operation called', () => {
    expect(watch.operations.filter((operation) => !watch.seen.has(operation))).toEqual([]);
  });
});
