// openid-client 6 is installed as `openid-client-6` (npm alias) beside openid-client 5, which the older tests use.
import type * as OpenIdClient from 'openid-client-6' with { 'resolution-mode': 'import' };
import type * as OAuth4WebApi from 'oauth4webapi' with { 'resolution-mode': 'import' };
import { webcrypto } from 'node:crypto';
import mongoose from 'mongoose';
import { stackEnv } from '@platform/testing';
import { cli, createUser, signInAndApprove, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';
import { startPlatform, type Platform } from '../gateway/platform';

/**
 * Dynamic client registration (RFC 7591) and management (RFC 7592), docs/auth.md "Dynamic client
 * registration": clients registered by openid-client 6 (`dynamicClientRegistration`) and oauth4webapi
 * with an initial access token an administrator minted, then used for real grants; the refusals in
 * RFC 7591 §3.2.2's and RFC 6750's words, each changing nothing; open registration and its limit per address.
 */
jest.setTimeout(120_000);

const REDIRECT = 'https://rp.example/callback';
const SCOPE = 'openid profile offline_access';
let client: typeof OpenIdClient;
let oauth: typeof OAuth4WebApi;
let auth: RunningAuth;
let adminToken: string;
let robot: CreatedClient;
let user: { id: string; email: string; password: string };
let db: mongoose.Connection;
const insecure = () => ({ [oauth.allowInsecureRequests]: true });

async function token(base: string, id: string, secret: string, params: Record<string, string>) {
  const res = await fetch(`${base}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

async function mintInitialToken(
  body: Record<string, unknown> = {},
): Promise<{ id: string; initial_access_token: string; max_uses: number | null; expires_at: string }> {
  const res = await fetch(`${auth.url}/admin/registration-tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as {
    id: string;
    initial_access_token: string;
    max_uses: number | null;
    expires_at: string;
  };
}

async function register(
  base: string,
  metadata: unknown,
  initial?: string,
): Promise<{ status: number; body: Record<string, unknown>; res: Response }> {
  const res = await fetch(`${base}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(initial ? { authorization: `Bearer ${initial}` } : {}) },
    body: JSON.stringify(metadata),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, res };
}

async function manage(
  uri: string,
  method: string,
  registrationToken: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown>; res: Response }> {
  const res = await fetch(uri, {
    method,
    headers: {
      authorization: `Bearer ${registrationToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, res };
}

/** RFC 7662 introspection by the registrar (a resource server of PUBLIC_URL). */
async function active(accessToken: string): Promise<boolean> {
  const res = await fetch(`${auth.url}/introspect`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${robot.client_id}:${robot.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token: accessToken }).toString(),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { active: boolean }).active;
}

const clientCount = () => db.collection('clients').countDocuments();

beforeAll(async () => {
  client = await import('openid-client-6');
  oauth = await import('oauth4webapi');
  // The registrar may introspect other clients' tokens (RFC 7662 §4), to see a deleted client's token revoked.
  auth = await startAuth({ INTROSPECTION_RESOURCE_SERVERS: 'registrar', REGISTRATION_RATE_LIMIT: '1000' });
  db = await mongoose.createConnection(stackEnv().MONGO_URL!, { dbName: auth.db }).asPromise();
  robot = await cli<CreatedClient>(auth, [
    'clients:create',
    '--client-id',
    'registrar',
    '--name',
    'Registrar',
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    '--scope',
    'admin',
  ]);
  const issued = await token(auth.url, robot.client_id, robot.client_secret!, {
    grant_type: 'client_credentials',
    scope: 'admin',
  });
  adminToken = issued.body.access_token!;
  user = await createUser(auth);
}, 120_000);

afterAll(async () => {
  await db?.close();
  await auth?.stop();
});

it('discovery (RFC 8414 and OpenID Connect) advertises the registration endpoint', async () => {
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
    const metadata = (await (await fetch(`${auth.url}${path}`)).json()) as { registration_endpoint?: string };
    expect(metadata.registration_endpoint).toBe(`${auth.issuer}/register`);
  }
});

it('openid-client 6 registers with an initial access token (RFC 7591 §3.2.1 answer) and completes the code flow and a refresh', async () => {
  const initial = await mintInitialToken({ max_uses: 5 });
  const config = await client.dynamicClientRegistration(
    new URL(auth.issuer),
    {
      client_name: 'Dynamic RP',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: SCOPE,
      token_endpoint_auth_method: 'client_secret_post',
    },
    undefined,
    { initialAccessToken: initial.initial_access_token, execute: [client.allowInsecureRequests] },
  );
  const registered = config.clientMetadata();
  expect(registered).toMatchObject({
    client_name: 'Dynamic RP',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
    scope: SCOPE,
    client_secret_expires_at: 0,
    registration_client_uri: `${auth.issuer}/register/${registered.client_id}`,
  });
  expect(typeof registered.client_secret).toBe('string');
  expect(typeof registered.registration_access_token).toBe('string');
  expect(Math.abs((registered.client_id_issued_at as number) - Date.now() / 1000)).toBeLessThan(120);

  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: SCOPE,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
  });
  const tokens = await client.authorizationCodeGrant(config, await signInAndApprove(auth.issuer, url, user), {
    pkceCodeVerifier: verifier,
    expectedNonce: nonce,
    expectedState: state,
  });
  expect(tokens.claims()).toMatchObject({ sub: user.id, aud: registered.client_id, nonce });
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  expect(refreshed.claims()?.sub).toBe(user.id);

  // The secret and the registration access token are stored as hashes only.
  const stored = JSON.stringify(
    await db.collection('client_registrations').findOne({ _id: registered.client_id as never }),
  );
  expect(stored).not.toContain(registered.registration_access_token as string);
  expect(JSON.stringify(await db.collection('registration_initial_tokens').find().toArray())).not.toContain(
    initial.initial_access_token,
  );
});

it('oauth4webapi registers a private_key_jwt client with its jwks and gets a client_credentials token with it', async () => {
  const initial = await mintInitialToken();
  const issuer = new URL(auth.issuer);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure() }),
  );
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const jwk = await webcrypto.subtle.exportKey('jwk', keys.publicKey);
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: [{ kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y!, use: 'sig' }] },
      scope: 'content:read',
    },
    { initialAccessToken: initial.initial_access_token, ...insecure() },
  );
  const registered = await oauth.processDynamicClientRegistrationResponse(response);
  expect(registered).toMatchObject({
    token_endpoint_auth_method: 'private_key_jwt',
    token_endpoint_auth_signing_alg: 'ES256',
    response_types: [],
    scope: 'content:read',
  });
  expect(registered.client_secret).toBeUndefined();

  const grant = await oauth.clientCredentialsGrantRequest(
    as,
    registered,
    oauth.PrivateKeyJwt(keys.privateKey),
    new URLSearchParams({ scope: 'content:read' }),
    insecure(),
  );
  const result = await oauth.processClientCredentialsResponse(as, registered, grant);
  expect(result.scope).toBe('content:read');
});

it('the admin CLI mints (registration-tokens:create) and revokes (registration-tokens:delete) initial access tokens', async () => {
  type Minted = { id: string; initial_access_token: string; max_uses: number | null; expires_at: string };
  const minted = await cli<Minted>(auth, ['registration-tokens:create', '--max-uses', '1', '--expires-in', '600']);
  expect(minted.max_uses).toBe(1);
  expect(Date.parse(minted.expires_at) - Date.now()).toBeLessThanOrEqual(600_000);
  expect((await register(auth.url, { redirect_uris: [REDIRECT] }, minted.initial_access_token)).status).toBe(201);
  expect((await register(auth.url, { redirect_uris: [REDIRECT] }, minted.initial_access_token)).status).toBe(401);

  const other = await cli<Minted>(auth, ['registration-tokens:create']);
  expect(await cli(auth, ['registration-tokens:delete', '--id', other.id])).toEqual({ id: other.id, deleted: true });
  expect((await register(auth.url, { redirect_uris: [REDIRECT] }, other.initial_access_token)).status).toBe(401);
  const audited = await db
    .collection('admin_audit')
    .find({ 'target.id': { $in: [minted.id, other.id] } })
    .toArray();
  expect(audited.map((entry) => entry.action).sort()).toEqual([
    'registration_token.create',
    'registration_token.create',
    'registration_token.delete',
  ]);
});

describe('refusals', () => {
  const good = { redirect_uris: [REDIRECT], client_name: 'Refused RP' };

  it('no initial access token, an unknown one, an expired one, a used-up one and a revoked one: 401 invalid_token, no client', async () => {
    const before = await clientCount();
    const none = await register(auth.url, good);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'invalid_token' });
    expect(none.res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    expect((await register(auth.url, good, 'iat_not-a-token')).body).toMatchObject({ error: 'invalid_token' });

    const expired = await mintInitialToken();
    await db
      .collection('registration_initial_tokens')
      .updateOne({ _id: expired.id as never }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await register(auth.url, good, expired.initial_access_token)).status).toBe(401);

    const once = await mintInitialToken({ max_uses: 1 });
    expect((await register(auth.url, good, once.initial_access_token)).status).toBe(201);
    const again = await register(auth.url, good, once.initial_access_token);
    expect(again.status).toBe(401);
    expect(again.body.error_description).toMatch(/used up/);

    const revoked = await mintInitialToken();
    const deleted = await fetch(`${auth.url}/admin/registration-tokens/${revoked.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(deleted.status).toBe(200);
    expect((await register(auth.url, good, revoked.initial_access_token)).status).toBe(401);
    expect(await clientCount()).toBe(before + 1); // the one registration the single-use token made
  });

  it.each([
    [
      'a grant type the server does not serve',
      { ...good, grant_types: ['implicit'] },
      'invalid_client_metadata',
      /grant_types/,
    ],
    [
      'a response type other than code',
      { ...good, response_types: ['token'] },
      'invalid_client_metadata',
      /response_types/,
    ],
    ['the admin scope', { ...good, scope: 'openid admin' }, 'invalid_client_metadata', /scope: admin/],
    [
      'a public client with client_credentials',
      { grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' },
      'invalid_client_metadata',
      /client_credentials/,
    ],
    [
      'an unknown authentication method',
      { ...good, token_endpoint_auth_method: 'tls_client_auth' },
      'invalid_client_metadata',
      /token_endpoint_auth_method/,
    ],
    [
      'an HMAC signing alg with private_key_jwt',
      {
        ...good,
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'HS256',
        jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }] },
      },
      'invalid_client_metadata',
      /token_endpoint_auth_signing_alg/,
    ],
    [
      'private_key_jwt without keys',
      { ...good, token_endpoint_auth_method: 'private_key_jwt' },
      'invalid_client_metadata',
      /jwks/,
    ],
    [
      'both jwks and jwks_uri',
      {
        ...good,
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }] },
        jwks_uri: 'https://rp.example/jwks',
      },
      'invalid_client_metadata',
      /jwks and jwks_uri/,
    ],
    [
      'a private key in jwks',
      { ...good, jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'secret' }] } },
      'invalid_client_metadata',
      /jwks/,
    ],
    ['a redirect URI that is not a URL', { redirect_uris: ['not a url'] }, 'invalid_redirect_uri', /redirect_uris/],
    [
      'a redirect URI with a fragment (RFC 6749 §3.1.2)',
      { redirect_uris: ['https://rp.example/cb#frag'] },
      'invalid_redirect_uri',
      /fragment/,
    ],
    [
      'a javascript: redirect URI',
      { redirect_uris: ['javascript:alert(document.cookie)'] },
      'invalid_redirect_uri',
      /scheme/,
    ],
    [
      'a data: post-logout redirect URI',
      { ...good, post_logout_redirect_uris: ['data:text/html,hi'] },
      'invalid_redirect_uri',
      /post_logout_redirect_uris/,
    ],
    [
      'the code grant without redirect URIs',
      { grant_types: ['authorization_code'] },
      'invalid_redirect_uri',
      /redirect_uris/,
    ],
    [
      'a javascript: client_uri',
      { ...good, client_uri: 'javascript:alert(1)' },
      'invalid_client_metadata',
      /client_uri/,
    ],
    [
      'a back-channel logout URI over http off loopback',
      { ...good, backchannel_logout_uri: 'http://rp.example/logout' },
      'invalid_client_metadata',
      /backchannel_logout_uri/,
    ],
    [
      'a software statement',
      { ...good, software_statement: 'eyJhbGciOiJub25lIn0.e30.' },
      'invalid_software_statement',
      /software statements/,
    ],
    ['a body that is not an object', ['redirect_uris'], 'invalid_client_metadata', /JSON object/],
  ])('%s: 400 %s, no client, no use of the initial token spent', async (_name, metadata, error, description) => {
    const once = await mintInitialToken({ max_uses: 1 });
    const before = await clientCount();
    const refused = await register(auth.url, metadata, once.initial_access_token);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error, error_description: expect.stringMatching(description) });
    expect(refused.res.headers.get('cache-control')).toBe('no-store');
    expect(await clientCount()).toBe(before);
    expect((await register(auth.url, good, once.initial_access_token)).status).toBe(201);
  });
});

it('takes the metadata of pushed authorization requests and back-channel logout as the admin API does, and returns it', async () => {
  const initial = await mintInitialToken();
  const made = await register(
    auth.url,
    {
      redirect_uris: [REDIRECT],
      require_pushed_authorization_requests: true,
      backchannel_logout_uri: 'https://rp.example/backchannel',
      backchannel_logout_session_required: true,
    },
    initial.initial_access_token,
  );
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({
    require_pushed_authorization_requests: true,
    backchannel_logout_uri: 'https://rp.example/backchannel',
    backchannel_logout_session_required: true,
  });
  const stored = await db.collection('clients').findOne({ _id: made.body.client_id as never });
  expect(stored).toMatchObject({
    requirePushedAuthorizationRequests: true,
    backchannelLogoutUri: 'https://rp.example/backchannel',
    backchannelLogoutSessionRequired: true,
  });
});

describe('the client configuration endpoint (RFC 7592)', () => {
  async function registered() {
    const initial = await mintInitialToken();
    const made = await register(
      auth.url,
      {
        client_name: 'Managed',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'client_credentials'],
        scope: 'openid content:read',
        contacts: ['ops@rp.example'],
      },
      initial.initial_access_token,
    );
    expect(made.status).toBe(201);
    return made.body as {
      client_id: string;
      client_secret: string;
      registration_access_token: string;
      registration_client_uri: string;
    };
  }

  it('GET answers the registration with a new registration access token; the used one stops working; a wrong one is 401', async () => {
    const made = await registered();
    const read = await manage(made.registration_client_uri, 'GET', made.registration_access_token);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      client_id: made.client_id,
      client_name: 'Managed',
      redirect_uris: [REDIRECT],
      contacts: ['ops@rp.example'],
      scope: 'openid content:read',
      registration_client_uri: made.registration_client_uri,
    });
    expect(read.body.client_secret).toBeUndefined();
    expect(read.body.registration_access_token).not.toBe(made.registration_access_token);
    const old = await manage(made.registration_client_uri, 'GET', made.registration_access_token);
    expect(old.status).toBe(401);
    expect(old.body).toMatchObject({ error: 'invalid_token' });
    expect(
      (await manage(made.registration_client_uri, 'GET', read.body.registration_access_token as string)).status,
    ).toBe(200);

    // Another client's token, or no client at all, is answered the same way.
    const other = await registered();
    expect((await manage(made.registration_client_uri, 'GET', other.registration_access_token)).status).toBe(401);
    expect(
      (await manage(`${auth.url}/register/no-such-client`, 'GET', other.registration_access_token)).body,
    ).toMatchObject({ error: 'invalid_token' });
  });

  it('PUT replaces the metadata (checked as at registration) and rotates the token; a bad update changes nothing', async () => {
    const made = await registered();
    const bad = await manage(made.registration_client_uri, 'PUT', made.registration_access_token, {
      client_id: made.client_id,
      redirect_uris: ['nope'],
      grant_types: ['authorization_code'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_redirect_uri' });
    const wrongId = await manage(made.registration_client_uri, 'PUT', made.registration_access_token, {
      client_id: 'someone-else',
      redirect_uris: [REDIRECT],
    });
    expect(wrongId.body).toMatchObject({ error: 'invalid_client_metadata' });

    const updated = await manage(made.registration_client_uri, 'PUT', made.registration_access_token, {
      client_id: made.client_id,
      client_secret: made.client_secret,
      client_name: 'Managed v2',
      redirect_uris: ['https://rp.example/v2'],
      grant_types: ['authorization_code', 'client_credentials'],
      scope: 'openid content:read',
      registration_client_uri: made.registration_client_uri,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ client_name: 'Managed v2', redirect_uris: ['https://rp.example/v2'] });
    expect(updated.body.contacts).toBeUndefined(); // omitted in the PUT: removed (RFC 7592 §2.2)
    expect((await manage(made.registration_client_uri, 'GET', made.registration_access_token)).status).toBe(401);
    const read = await manage(made.registration_client_uri, 'GET', updated.body.registration_access_token as string);
    expect(read.body).toMatchObject({ client_name: 'Managed v2', redirect_uris: ['https://rp.example/v2'] });
    // The secret issued at registration still authenticates the client.
    expect(
      (
        await token(auth.url, made.client_id, made.client_secret, {
          grant_type: 'client_credentials',
          scope: 'content:read',
        })
      ).status,
    ).toBe(200);
  });

  it('DELETE removes the client: its secret and its access token are refused afterwards, and so is the registration access token', async () => {
    const made = await registered();
    const issued = await token(auth.url, made.client_id, made.client_secret, {
      grant_type: 'client_credentials',
      scope: 'content:read',
    });
    expect(issued.status).toBe(200);
    expect(await active(issued.body.access_token!)).toBe(true);
    const wrong = await manage(made.registration_client_uri, 'DELETE', 'rat_wrong');
    expect(wrong.status).toBe(401);
    expect(
      (
        await token(auth.url, made.client_id, made.client_secret, {
          grant_type: 'client_credentials',
          scope: 'content:read',
        })
      ).status,
    ).toBe(200);

    const removed = await manage(made.registration_client_uri, 'DELETE', made.registration_access_token);
    expect(removed.status).toBe(204);
    const after = await token(auth.url, made.client_id, made.client_secret, {
      grant_type: 'client_credentials',
      scope: 'content:read',
    });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ error: 'invalid_client' });
    expect(await active(issued.body.access_token!)).toBe(false);
    expect((await manage(made.registration_client_uri, 'GET', made.registration_access_token)).status).toBe(401);
  });
});

describe('open registration (REGISTRATION_OPEN=true) and the limit per address', () => {
  let open: RunningAuth;
  beforeAll(async () => {
    open = await startAuth({ REGISTRATION_OPEN: 'true', REGISTRATION_RATE_LIMIT: '3' });
  }, 120_000);
  afterAll(async () => {
    await open?.stop();
  });

  it('registers without an initial access token, then refuses the address past REGISTRATION_RATE_LIMIT a minute with 429 and Retry-After', async () => {
    const made = await register(open.url, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      token_endpoint_auth_method: 'none',
      scope: 'openid',
      grant_types: ['authorization_code'],
    });
    expect(made.body.client_secret).toBeUndefined();
    expect((await register(open.url, { redirect_uris: [REDIRECT] })).status).toBe(201);
    expect(
      (await manage(made.body.registration_client_uri as string, 'GET', made.body.registration_access_token as string))
        .status,
    ).toBe(200);
    // The window opened with the first request and lasts a minute: these four fit in it.
    const limited = await register(open.url, { redirect_uris: [REDIRECT] });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'temporarily_unavailable' });
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('through the gateway', () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform({ authEnv: { REGISTRATION_OPEN: 'true', REGISTRATION_RATE_LIMIT: '3' } });
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
  });

  it('forwards /register and /register/{client_id}; the limit counts the address the gateway signed', async () => {
    const gateway = platform.gateways[0]!.url;
    const made = await register(gateway, { redirect_uris: [REDIRECT] });
    expect(made.status).toBe(201);
    expect(made.body.registration_client_uri).toBe(`${platform.publicUrl}/register/${String(made.body.client_id)}`);
    const read = await manage(
      `${gateway}/register/${String(made.body.client_id)}`,
      'GET',
      made.body.registration_access_token as string,
    );
    expect(read.status).toBe(200);
    expect((await register(gateway, { redirect_uris: [REDIRECT] })).status).toBe(201);
    // The fourth request of this address within the minute the first one opened.
    expect((await register(gateway, { redirect_uris: [REDIRECT] })).status).toBe(429);
  });
});
