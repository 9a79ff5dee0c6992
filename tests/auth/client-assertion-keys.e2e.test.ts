import { generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import mongoose from 'mongoose';
import { importJWK, SignJWT, type JWK } from 'jose';
import type * as OAuth4WebApi from 'oauth4webapi' with { 'resolution-mode': 'import' };
import { stackEnv } from '@platform/testing';
import { createUser, FormAgent } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

/**
 * Client assertions (RFC 7523, private_key_jwt) checked against the keys a client registered and the
 * algorithm it registered (docs/auth.md "Client authentication"): keys published at a `jwks_uri` (served
 * here on loopback, CLIENT_JWKS_URI_ALLOW_PRIVATE), `token_endpoint_auth_signing_alg` at every endpoint
 * that authenticates clients, and a FAPI 2.0 client registered dynamically with its keys at a `jwks_uri`.
 * Also RFC 7592 §2.2: a PUT that leaves out optional metadata resets it.
 */
jest.setTimeout(90_000);

const REDIRECT = 'https://rp.example/callback';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
let oauth: typeof OAuth4WebApi;
let auth: RunningAuth;
let as: OAuth4WebApi.AuthorizationServer;
let insecure: Record<symbol, boolean>;
let user: { id: string; email: string; password: string };
let db: mongoose.Connection;
let server: http.Server;
let jwksUri: string;
/** The key the jwks_uri publishes (ES256, kid es-1) and an RSA key (PS256, kid ps-1) registered beside it by value. */
let esKey: CryptoKey;
let esPublic: JWK;
let psPrivate: JWK;
let psPublic: JWK;

beforeAll(async () => {
  oauth = await import('oauth4webapi');
  insecure = { [oauth.allowInsecureRequests]: true };
  const es = await oauth.generateKeyPair('ES256');
  esKey = es.privateKey;
  const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', es.publicKey);
  esPublic = { kty: kty!, crv, x, y, kid: 'es-1', alg: 'ES256', use: 'sig' };
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  psPrivate = { ...rsa.privateKey.export({ format: 'jwk' }), kty: 'RSA', kid: 'ps-1', alg: 'PS256' };
  psPublic = { ...rsa.publicKey.export({ format: 'jwk' }), kty: 'RSA', kid: 'ps-1', alg: 'PS256', use: 'sig' };
  server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [esPublic] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  auth = await startAuth({
    CLIENT_JWKS_URI_ALLOW_PRIVATE: 'true',
    REGISTRATION_OPEN: 'true',
    REGISTRATION_RATE_LIMIT: '1000',
    BACKCHANNEL_LOGOUT_ALLOW_PRIVATE: 'true',
  });
  db = await mongoose.createConnection(stackEnv().MONGO_URL!, { dbName: auth.db }).asPromise();
  user = await createUser(auth);
  as = await oauth.processDiscoveryResponse(
    new URL(auth.issuer),
    await oauth.discoveryRequest(new URL(auth.issuer), { algorithm: 'oidc', ...insecure }),
  );
}, 120_000);

afterAll(async () => {
  await db?.close();
  await auth?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

async function register(metadata: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${auth.issuer}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const clientCount = () => db.collection('clients').countDocuments();

async function assertion(
  clientId: string,
  key: Parameters<SignJWT['sign']>[0],
  alg: string,
  kid: string,
): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg, kid })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(auth.issuer)
    .setIssuedAt()
    .setExpirationTime('1m')
    .setJti(randomUUID())
    .sign(key);
}

async function approve(url: URL): Promise<URL> {
  const agent = new FormAgent(auth.issuer);
  const consent = await agent.signIn(await agent.follow(url.href), user);
  return new URL((await agent.decide(consent, '/authorize/decision', 'approve')).url);
}

it('private_key_jwt with the keys at a jwks_uri: oauth4webapi registers the client and gets a client_credentials token', async () => {
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: jwksUri,
      scope: 'content:read',
    },
    insecure,
  );
  const registered = await oauth.processDynamicClientRegistrationResponse(response);
  expect(registered).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: jwksUri });
  const grant = await oauth.clientCredentialsGrantRequest(
    as,
    registered,
    oauth.PrivateKeyJwt({ key: esKey, kid: 'es-1' }),
    new URLSearchParams({ scope: 'content:read' }),
    insecure,
  );
  expect((await oauth.processClientCredentialsResponse(as, registered, grant)).scope).toBe('content:read');
});

it('token_endpoint_auth_signing_alg: an assertion signed with another alg is invalid_client at /token, /par, /introspect, /revoke and /device_authorization', async () => {
  const made = await register({
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'],
    token_endpoint_auth_method: 'private_key_jwt',
    token_endpoint_auth_signing_alg: 'ES256',
    jwks: { keys: [esPublic, psPublic] },
    scope: 'openid content:read',
  });
  expect(made.status).toBe(201);
  expect(made.body.token_endpoint_auth_signing_alg).toBe('ES256');
  const clientId = made.body.client_id as string;
  const psKey = await importJWK(psPrivate, 'PS256');
  const forms: Record<string, Record<string, string>> = {
    '/token': { grant_type: 'client_credentials', scope: 'content:read' },
    '/par': {
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
    },
    '/introspect': { token: 'at_unknown' },
    '/revoke': { token: 'rt_unknown' },
    '/device_authorization': { scope: 'content:read' },
  };
  for (const [path, form] of Object.entries(forms)) {
    const post = async (signed: string) => {
      const res = await fetch(`${auth.issuer}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          ...form,
          client_id: clientId,
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: signed,
        }).toString(),
      });
      return { path, status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
    };
    // A key the client registered, but not the alg it registered: refused.
    const other = await post(await assertion(clientId, psKey, 'PS256', 'ps-1'));
    expect(other).toEqual({
      path,
      status: 401,
      body: {
        error: 'invalid_client',
        error_description: expect.stringMatching(/ES256.*token_endpoint_auth_signing_alg/),
      },
    });
    // The control: the registered alg authenticates (whatever the endpoint then says of the request).
    const own = await post(await assertion(clientId, esKey, 'ES256', 'es-1'));
    expect({ path, error: own.body.error }).not.toEqual({ path, error: 'invalid_client' });
    expect(own.status).not.toBe(401);
  }
});

describe('security_profile fapi2 at /register', () => {
  it('a FAPI client with its keys at a jwks_uri completes PAR + PKCE + DPoP + private_key_jwt (oauth4webapi)', async () => {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        security_profile: 'fapi2',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks_uri: jwksUri,
        scope: 'openid content:read',
      },
      insecure,
    );
    const registered = await oauth.processDynamicClientRegistrationResponse(response);
    expect(registered).toMatchObject({
      security_profile: 'fapi2',
      require_pushed_authorization_requests: true,
      jwks_uri: jwksUri,
    });
    const client: OAuth4WebApi.Client = { client_id: registered.client_id };
    const clientAuth = oauth.PrivateKeyJwt({ key: esKey, kid: 'es-1' });

    // The profile applies: a request by value is refused (PAR required), a secret-based client auth has no secret to use.
    const byValue = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
    }))
      byValue.searchParams.set(k, v);
    expect((await fetch(byValue, { redirect: 'manual' })).status).toBe(400);

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      client,
      await oauth.pushedAuthorizationRequest(
        as,
        client,
        clientAuth,
        {
          redirect_uri: REDIRECT,
          response_type: 'code',
          scope: 'openid content:read',
          state,
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        },
        insecure,
      ),
    );
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('request_uri', pushed.request_uri);
    const params = oauth.validateAuthResponse(as, client, await approve(url), state);
    const dpop = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const bare = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      REDIRECT,
      verifier,
      insecure,
    );
    expect(bare.status).toBe(400); // no DPoP proof: the profile issues sender-constrained tokens only
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT, verifier, {
        DPoP: dpop,
        ...insecure,
      }),
    );
    expect(tokens.token_type).toBe('dpop');
  });

  it('is refused as invalid_client_metadata with another auth method or a signing alg outside the profile, creating nothing', async () => {
    const before = await clientCount();
    const base = {
      security_profile: 'fapi2',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code'],
      jwks_uri: jwksUri,
    };
    for (const [metadata, description] of [
      [{ ...base, token_endpoint_auth_method: 'client_secret_basic' }, /private_key_jwt/],
      [
        { ...base, token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: 'RS256' },
        /token_endpoint_auth_signing_alg/,
      ],
      [
        { ...base, token_endpoint_auth_method: 'private_key_jwt', require_pushed_authorization_requests: false },
        /pushed authorization requests/,
      ],
    ] as const) {
      const refused = await register(metadata);
      expect(refused).toEqual({
        status: 400,
        body: { error: 'invalid_client_metadata', error_description: expect.stringMatching(description) },
      });
    }
    expect(await clientCount()).toBe(before);
  });
});

describe('PUT at the client configuration endpoint (RFC 7592 §2.2)', () => {
  it('replaces the registration: optional metadata left out goes back to its default, in the answer and in what is enforced', async () => {
    const made = await register({
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'PS256',
      jwks: { keys: [esPublic, psPublic] },
      require_pushed_authorization_requests: true,
      backchannel_logout_uri: 'https://rp.example/backchannel',
      backchannel_logout_session_required: true,
      scope: 'openid content:read',
    });
    expect(made.status).toBe(201);
    const {
      client_id: clientId,
      registration_client_uri: uri,
      registration_access_token: token,
    } = made.body as Record<string, string>;
    // Keys moved to a jwks_uri, every optional field left out.
    const res = await fetch(uri!, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: clientId,
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: jwksUri,
        scope: 'openid content:read',
      }),
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Record<string, unknown>;
    for (const field of [
      'token_endpoint_auth_signing_alg',
      'require_pushed_authorization_requests',
      'backchannel_logout_uri',
      'backchannel_logout_session_required',
      'jwks',
    ])
      expect(answer[field]).toBeUndefined();
    expect(answer.jwks_uri).toBe(jwksUri);
    expect(await db.collection('clients').findOne({ _id: clientId as never })).toMatchObject({
      tokenEndpointAuthSigningAlg: null,
      requirePushedAuthorizationRequests: false,
      backchannelLogoutUri: null,
      backchannelLogoutSessionRequired: false,
      jwks: null,
      jwksUri,
    });
    // ES256 (no longer held to PS256) with the key at the jwks_uri authenticates.
    const grant = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: clientId! },
      oauth.PrivateKeyJwt({ key: esKey, kid: 'es-1' }),
      new URLSearchParams({ scope: 'content:read' }),
      insecure,
    );
    expect(grant.status).toBe(200);
  });

  it('refuses to change the security profile (invalid_client_metadata), changing nothing', async () => {
    const made = await register({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: jwksUri,
      scope: 'openid',
    });
    expect(made.status).toBe(201);
    const {
      client_id: clientId,
      registration_client_uri: uri,
      registration_access_token: token,
    } = made.body as Record<string, string>;
    const res = await fetch(uri!, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: clientId,
        security_profile: 'fapi2',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: jwksUri,
        scope: 'openid',
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: expect.stringMatching(/security_profile: cannot change/),
    });
    expect(await db.collection('clients').findOne({ _id: clientId as never })).toMatchObject({ securityProfile: null });
  });
});
