import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { webcrypto } from 'node:crypto';
import { exportJWK, SignJWT, type JWK } from 'jose';
import type * as OAuth4WebApi from 'oauth4webapi' with { 'resolution-mode': 'import' };
import { untilClock } from '@platform/testing';
import { cli, createUser, FormAgent, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

/**
 * Pushed authorization requests (RFC 9126) and signed request objects (RFC 9101) with oauth4webapi:
 * private_key_jwt at /par and /token, request objects by value at /par and /authorize, keys registered
 * as `jwks` or served at a `jwks_uri`, and the refusals (reused or expired request_uri, a wrong
 * signature, alg none, PAR required).
 */
jest.setTimeout(90_000);

const REDIRECT = 'https://rp.example/callback';
let oauth: typeof OAuth4WebApi;
let auth: RunningAuth;
let user: { id: string; email: string; password: string };
let adminToken: string;
let as: OAuth4WebApi.AuthorizationServer;
const insecure = () => ({ [oauth.allowInsecureRequests]: true });

interface Keys {
  privateKey: CryptoKey;
  jwk: JWK;
  kid: string;
}

async function clientKeys(kid: string): Promise<Keys> {
  // A WebCrypto key pair: oauth4webapi signs with CryptoKey only.
  const { privateKey, publicKey } = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  return { privateKey, kid, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

async function admin(
  method: string,
  route: string,
  body?: unknown,
  base = auth.url,
  token = adminToken,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/admin${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function adminTokenOf(target: RunningAuth): Promise<string> {
  const robot = await cli<CreatedClient>(target, [
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
  const res = await fetch(`${target.url}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${robot.client_id}:${robot.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'admin' }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Registers a confidential code-flow client through the administration API. */
async function register(extra: Record<string, unknown>, base = auth.url, token = adminToken): Promise<string> {
  const { status, body } = await admin(
    'POST',
    '/clients',
    {
      name: 'PAR client',
      type: 'confidential',
      grant_types: ['authorization_code'],
      redirect_uris: [REDIRECT],
      scopes: ['openid', 'content:read', 'content:write'],
      secret: false,
      ...extra,
    },
    base,
    token,
  );
  if (status !== 201) throw new Error(`register: ${status} ${JSON.stringify(body)}`);
  return body.client_id as string;
}

/** Pushes with private_key_jwt; the raw response. */
function push(clientId: string, keys: Keys, parameters: Record<string, string>): Promise<Response> {
  return oauth.pushedAuthorizationRequest(
    as,
    { client_id: clientId },
    oauth.PrivateKeyJwt({ key: keys.privateKey, kid: keys.kid }),
    parameters,
    insecure(),
  );
}

async function requestObject(clientId: string, keys: Keys, parameters: Record<string, string>): Promise<string> {
  return oauth.issueRequestObject(as, { client_id: clientId }, parameters, { key: keys.privateKey, kid: keys.kid });
}

/** GET /authorize in a fresh browser: the first answer (a redirect into the flow, or an error page). */
async function openAuthorize(
  query: Record<string, string>,
): Promise<{ status: number; text: string; location: string | null }> {
  const url = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, text: await res.text(), location: res.headers.get('location') };
}

/** Signs in and approves; the URL the browser lands on at the client. */
async function approve(query: Record<string, string>): Promise<URL> {
  const url = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const agent = new FormAgent(auth.issuer);
  const consent = await agent.signIn(await agent.follow(url.href), user);
  const done = await agent.decide(consent, '/authorize/decision', 'approve');
  return new URL(done.url);
}

beforeAll(async () => {
  oauth = await import('oauth4webapi');
  // The jwks_uri test serves keys from this process on loopback: allowed only by this development setting.
  auth = await startAuth({ CLIENT_JWKS_URI_ALLOW_PRIVATE: 'true' });
  user = await createUser(auth);
  adminToken = await adminTokenOf(auth);
  const issuer = new URL(auth.issuer);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure() }),
  );
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

describe('discovery', () => {
  it('advertises PAR and request objects in both metadata documents', async () => {
    const oauthMetadata = (await (await fetch(`${auth.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    for (const doc of [as as unknown as Record<string, unknown>, oauthMetadata]) {
      expect(doc).toMatchObject({
        pushed_authorization_request_endpoint: `${auth.issuer}/par`,
        require_pushed_authorization_requests: false,
        request_parameter_supported: true,
        request_object_signing_alg_values_supported: ['ES256', 'ES384', 'EdDSA', 'PS256', 'RS256'],
      });
      expect(doc).not.toHaveProperty('require_signed_request_object');
    }
  });
});

describe('PAR with a signed request object and private_key_jwt (oauth4webapi)', () => {
  let keys: Keys;
  let clientId: string;
  beforeAll(async () => {
    keys = await clientKeys('par-1');
    clientId = await register({
      jwks: { keys: [keys.jwk] },
      request_object_signing_alg: 'ES256',
      require_pushed_authorization_requests: true,
      require_signed_request_object: true,
    });
  });

  it('the registration shows its policy', async () => {
    const { body } = await admin('GET', `/clients/${clientId}`);
    expect(body).toMatchObject({
      client_id: clientId,
      has_jwks: true,
      request_object_signing_alg: 'ES256',
      require_pushed_authorization_requests: true,
      require_signed_request_object: true,
    });
  });

  it('pushes, signs in with request_uri, redeems the code; only the request object counts', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const state = oauth.generateRandomState();
    const jwt = await requestObject(clientId, keys, {
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid content:read',
      nonce,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    // A scope outside the object is ignored (RFC 9101 §5).
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      { client_id: clientId },
      await push(clientId, keys, { request: jwt, scope: 'content:write' }),
    );
    expect(pushed.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
    expect(pushed.expires_in).toBe(60);

    const back = await approve({ client_id: clientId, request_uri: pushed.request_uri });
    const params = oauth.validateAuthResponse(as, { client_id: clientId }, back, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: clientId },
      oauth.PrivateKeyJwt({ key: keys.privateKey, kid: keys.kid }),
      params,
      REDIRECT,
      verifier,
      insecure(),
    );
    const result = await oauth.processAuthorizationCodeResponse(as, { client_id: clientId }, response, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    expect(result.scope).toBe('openid content:read');
    expect(oauth.getValidatedIdTokenClaims(result)).toMatchObject({ sub: user.id, aud: clientId, nonce });

    // One-time: the same request_uri again is refused.
    const again = await openAuthorize({ client_id: clientId, request_uri: pushed.request_uri });
    expect(again.status).toBe(400);
    expect(again.text).toContain('invalid_request_uri');
  });

  it('a DPoP proof at /par binds the code to its key (RFC 9449 §10.1): DPoP tokens with it, refused with another key', async () => {
    const client: OAuth4WebApi.Client = { client_id: clientId };
    const pushAndApprove = async () => {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const jwt = await requestObject(clientId, keys, {
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'content:read',
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const bound = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
      const pushed = await oauth.processPushedAuthorizationResponse(
        as,
        { client_id: clientId },
        await oauth.pushedAuthorizationRequest(
          as,
          { client_id: clientId },
          oauth.PrivateKeyJwt({ key: keys.privateKey, kid: keys.kid }),
          { request: jwt },
          { DPoP: bound, ...insecure() },
        ),
      );
      const params = oauth.validateAuthResponse(
        as,
        { client_id: clientId },
        await approve({ client_id: clientId, request_uri: pushed.request_uri }),
        state,
      );
      return { bound, params, verifier };
    };
    const first = await pushAndApprove();
    const ok = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: clientId },
      oauth.PrivateKeyJwt({ key: keys.privateKey, kid: keys.kid }),
      first.params,
      REDIRECT,
      first.verifier,
      { DPoP: first.bound, ...insecure() },
    );
    expect((await oauth.processAuthorizationCodeResponse(as, { client_id: clientId }, ok)).token_type).toBe('dpop');

    const second = await pushAndApprove();
    const other = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const refused = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: clientId },
      oauth.PrivateKeyJwt({ key: keys.privateKey, kid: keys.kid }),
      second.params,
      REDIRECT,
      second.verifier,
      { DPoP: other, ...insecure() },
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: 'invalid_dpop_proof',
      error_description: 'the code is bound to another DPoP key',
    });
  });

  it('a plain authorization request of a client that must push is refused', async () => {
    const plain = await openAuthorize({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'content:read',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
    });
    expect(plain.status).toBe(400);
    expect(plain.text).toContain('invalid_request: this client must push its authorization requests');
    expect(plain.location).toBeNull();
  });

  it('a request_uri of another client, or not issued here, is refused', async () => {
    const other = await clientKeys('other-1');
    const otherId = await register({ jwks: { keys: [other.jwk] } });
    const jwt = await requestObject(otherId, other, {
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'content:read',
    });
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      { client_id: otherId },
      await push(otherId, other, { request: jwt }),
    );
    const stolen = await openAuthorize({ client_id: clientId, request_uri: pushed.request_uri });
    expect(stolen.status).toBe(400);
    expect(stolen.text).toContain('invalid_request_uri');
    const made = await openAuthorize({ client_id: clientId, request_uri: 'urn:ietf:params:oauth:request_uri:made-up' });
    expect(made.text).toContain('invalid_request_uri');
  });

  it('a pushed request without a request object is refused when one is required', async () => {
    const res = await push(clientId, keys, { redirect_uri: REDIRECT, response_type: 'code', scope: 'content:read' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_request',
      error_description: expect.stringContaining('signed request object'),
    });
  });

  it('a request object signed with another key is refused (invalid_request_object)', async () => {
    const stranger = await clientKeys('par-1');
    const jwt = await requestObject(clientId, stranger, {
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'content:read',
    });
    const res = await push(clientId, keys, { request: jwt });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request_object' });
  });

  it('an unsigned request object (alg none) is refused, at /par and at /authorize', async () => {
    const now = Math.floor(Date.now() / 1000);
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${b64({ alg: 'none', typ: 'oauth-authz-req+jwt' })}.${b64({ iss: clientId, aud: auth.issuer, exp: now + 60, client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'content:read' })}.`;
    const res = await push(clientId, keys, { request: unsigned });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_request_object',
      error_description: expect.stringContaining('alg none'),
    });
    const page = await openAuthorize({ client_id: clientId, request: unsigned });
    // This client must push: PAR's refusal comes first. The request object's own check is in the jwks_uri test.
    expect(page.status).toBe(400);
  });

  it('a registration with request_object_signing_alg none, or jwks and jwks_uri both, is refused', async () => {
    const none = await admin('POST', '/clients', {
      name: 'x',
      type: 'confidential',
      grant_types: ['authorization_code'],
      redirect_uris: [REDIRECT],
      request_object_signing_alg: 'none',
    });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('request_object_signing_alg'),
    });
    const both = await admin('POST', '/clients', {
      name: 'x',
      type: 'confidential',
      grant_types: ['authorization_code'],
      redirect_uris: [REDIRECT],
      jwks: { keys: [keys.jwk] },
      jwks_uri: 'https://rp.example/jwks',
    });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('jwks_uri'),
    });
  });

  it('the policy is changed through the administration API: PAR required afterwards; jwks_uri beside jwks refused', async () => {
    const later = await clientKeys('later-1');
    const laterId = await register({ jwks: { keys: [later.jwk] } });
    const query = { client_id: laterId, redirect_uri: REDIRECT, response_type: 'code', scope: 'content:read' };
    expect((await openAuthorize(query)).status).toBe(303);
    const patched = await admin('PATCH', `/clients/${laterId}`, { require_pushed_authorization_requests: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ require_pushed_authorization_requests: true });
    const refused = await openAuthorize(query);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('must push its authorization requests');
    const both = await admin('PATCH', `/clients/${laterId}`, { jwks_uri: 'https://rp.example/jwks' });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('jwks_uri'),
    });
  });

  it("client authentication at /par is the token endpoint's: a wrong secret is invalid_client", async () => {
    const res = await fetch(`${auth.url}/par`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:wrong`).toString('base64')}`,
      },
      body: new URLSearchParams({ redirect_uri: REDIRECT, response_type: 'code' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
  });
});

describe('a request object by value at /authorize, keys at a jwks_uri', () => {
  let keys: Keys;
  let server: http.Server;
  let served = 0;
  let clientId: string;
  beforeAll(async () => {
    keys = await clientKeys('uri-1');
    server = http.createServer((_req, res) => {
      served += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [keys.jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    clientId = await register({ jwks_uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks` });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('verifies the object with the fetched keys (cached) and uses only its parameters', async () => {
    const state = oauth.generateRandomState();
    const jwt = await requestObject(clientId, keys, {
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'content:read',
      state,
      code_challenge: 'b'.repeat(43),
      code_challenge_method: 'S256',
    });
    // The outer redirect_uri is not registered: were it read, the request would be refused.
    const back = await approve({ client_id: clientId, request: jwt, redirect_uri: 'https://evil.example/cb' });
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('code')).toMatch(/^ac_/);
    expect(served).toBe(1);
    // A second object: the key set comes from the cache.
    const second = await requestObject(clientId, keys, {
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'content:read',
      code_challenge: 'c'.repeat(43),
      code_challenge_method: 'S256',
    });
    expect((await openAuthorize({ client_id: clientId, request: second })).status).toBe(303);
    expect(served).toBe(1);
  });

  it('refuses at /authorize an object that is unsigned, replayed, or for another audience, on the page', async () => {
    const now = Math.floor(Date.now() / 1000);
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = await openAuthorize({
      client_id: clientId,
      request: `${b64({ alg: 'none' })}.${b64({ iss: clientId, aud: auth.issuer, exp: now + 60, redirect_uri: REDIRECT, response_type: 'code' })}.`,
    });
    expect(unsigned.status).toBe(400);
    expect(unsigned.text).toContain('invalid_request_object');
    expect(unsigned.location).toBeNull();

    const once = await new SignJWT({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'content:read',
      code_challenge: 'd'.repeat(43),
      code_challenge_method: 'S256',
    })
      .setProtectedHeader({ alg: 'ES256', kid: keys.kid, typ: 'oauth-authz-req+jwt' })
      .setIssuer(clientId)
      .setAudience(auth.issuer)
      .setExpirationTime('1m')
      .setJti(`jti-${now}`)
      .sign(keys.privateKey);
    expect((await openAuthorize({ client_id: clientId, request: once })).status).toBe(303);
    const replayed = await openAuthorize({ client_id: clientId, request: once });
    expect(replayed.status).toBe(400);
    expect(replayed.text).toContain('already used');

    const elsewhere = await new SignJWT({ redirect_uri: REDIRECT, response_type: 'code' })
      .setProtectedHeader({ alg: 'ES256', kid: keys.kid })
      .setIssuer(clientId)
      .setAudience('https://other.example')
      .setExpirationTime('1m')
      .sign(keys.privateKey);
    expect((await openAuthorize({ client_id: clientId, request: elsewhere })).text).toContain('invalid_request_object');
  });
});

describe('PAR required by the server (REQUIRE_PUSHED_AUTHORIZATION_REQUESTS), PAR_TTL', () => {
  let strict: RunningAuth;
  let strictAs: OAuth4WebApi.AuthorizationServer;
  let strictToken: string;
  beforeAll(async () => {
    strict = await startAuth({ REQUIRE_PUSHED_AUTHORIZATION_REQUESTS: 'true', PAR_TTL: '1' });
    strictToken = await adminTokenOf(strict);
    const issuer = new URL(strict.issuer);
    strictAs = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure()));
  }, 120_000);
  afterAll(async () => {
    await strict?.stop();
  });

  it('advertises it, refuses a plain request, and a request_uri is refused once expired', async () => {
    expect(strictAs.require_pushed_authorization_requests).toBe(true);
    const keys = await clientKeys('strict-1');
    const clientId = await register({ jwks: { keys: [keys.jwk] } }, strict.url, strictToken);
    const plain = await fetch(
      `${strict.url}/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code' })}`,
      { redirect: 'manual' },
    );
    expect(plain.status).toBe(400);
    expect(await plain.text()).toContain('must push its authorization requests');

    const pushedAt = Date.now();
    const res = await oauth.pushedAuthorizationRequest(
      strictAs,
      { client_id: clientId },
      oauth.PrivateKeyJwt({ key: keys.privateKey, kid: keys.kid }),
      { redirect_uri: REDIRECT, response_type: 'code', scope: 'content:read' },
      insecure(),
    );
    const pushed = await oauth.processPushedAuthorizationResponse(strictAs, { client_id: clientId }, res);
    expect(pushed.expires_in).toBe(1);
    // Redis expires the key within its second (plus its own expiry resolution); wait past it by the clock.
    await untilClock(pushedAt + 2500);
    const late = await fetch(
      `${strict.url}/authorize?${new URLSearchParams({ client_id: clientId, request_uri: pushed.request_uri })}`,
      { redirect: 'manual' },
    );
    expect(late.status).toBe(400);
    expect(await late.text()).toContain('invalid_request_uri');
  });
});
