import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { createRemoteJWKSet, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import type * as OAuth4WebApi from 'oauth4webapi' with { 'resolution-mode': 'import' };
import { stackEnv } from '@platform/testing';
import { cli, createUser, FormAgent, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

/**
 * RFC 9207 (`iss` in the authorization response), RFC 9701 (JWT introspection answers) and the FAPI 2.0
 * Security Profile (a client registered with `security_profile: "fapi2"`), driven by oauth4webapi as a
 * relying party would; docs/auth.md "FAPI 2.0" names the OpenID conformance-suite modules each test stands for.
 * AUTHORIZATION_CODE_TTL is 600 s here so that the profile's 60 s cap on codes is visible.
 */
jest.setTimeout(60_000);

const REDIRECT = 'https://rp.example/callback';
const SCOPE = 'openid content:read offline_access';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
let oauth: typeof OAuth4WebApi;
let auth: RunningAuth;
let redis: Redis;
let user: { id: string; email: string; password: string };
let as: OAuth4WebApi.AuthorizationServer;
let insecure: Record<symbol, boolean>;
/** A confidential client with a secret, whose registration asks for ES256-signed introspection answers. */
let rp: CreatedClient;
/** The FAPI 2.0 client: private_key_jwt with an ES256 key (and an RS256 one, which the profile refuses). */
let fapi: CreatedClient;
let fapiKey: CryptoKey;
let rsaPrivateJwk: JWK;

beforeAll(async () => {
  oauth = await import('oauth4webapi');
  insecure = { [oauth.allowInsecureRequests]: true };
  auth = await startAuth({ AUTHORIZATION_CODE_TTL: '600' });
  redis = new Redis(stackEnv().REDIS_URL);
  user = await createUser(auth);
  rp = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'RP',
    '--type',
    'confidential',
    '--grant',
    'authorization_code',
    '--grant',
    'client_credentials',
    '--redirect-uri',
    REDIRECT,
    '--scope',
    SCOPE,
    '--introspection-signed-response-alg',
    'ES256',
  ]);
  const es = await oauth.generateKeyPair('ES256');
  fapiKey = es.privateKey;
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  rsaPrivateJwk = { ...rsa.privateKey.export({ format: 'jwk' }), kty: 'RSA', kid: 'rsa-1', alg: 'RS256' };
  const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', es.publicKey);
  const jwks = {
    keys: [
      { kty, crv, x, y, kid: 'es-1', alg: 'ES256', use: 'sig' },
      { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    ],
  };
  const jwksFile = path.join(os.tmpdir(), `fapi-jwks-${randomUUID()}.json`);
  fs.writeFileSync(jwksFile, JSON.stringify(jwks));
  try {
    fapi = await cli<CreatedClient>(auth, [
      'clients:create',
      '--name',
      'FAPI',
      '--type',
      'confidential',
      '--grant',
      'authorization_code',
      '--grant',
      'refresh_token',
      '--redirect-uri',
      REDIRECT,
      '--scope',
      SCOPE,
      '--no-secret',
      '--jwks-file',
      jwksFile,
      '--security-profile',
      'fapi2',
    ]);
  } finally {
    fs.rmSync(jwksFile);
  }
  as = await oauth.processDiscoveryResponse(
    new URL(auth.issuer),
    await oauth.discoveryRequest(new URL(auth.issuer), { algorithm: 'oidc', ...insecure }),
  );
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await auth?.stop();
});

const fapiClient = (): OAuth4WebApi.Client => ({ client_id: fapi.client_id });
const fapiAuth = () => oauth.PrivateKeyJwt({ key: fapiKey, kid: 'es-1' });

/** The authorization request pushed (RFC 9126, as FAPI 2.0 requires), and the URL that sends the browser with its request_uri. */
async function authorizationUrl(
  client: OAuth4WebApi.Client,
  clientAuth: OAuth4WebApi.ClientAuth,
  params: Record<string, string>,
): Promise<URL> {
  const pushed = await oauth.processPushedAuthorizationResponse(
    as,
    client,
    await oauth.pushedAuthorizationRequest(as, client, clientAuth, params, insecure),
  );
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('request_uri', pushed.request_uri);
  return url;
}

/** The authorization request by value in the URL (no PAR). */
function urlByValue(clientId: string, params: Record<string, string>): URL {
  const url = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries({ client_id: clientId, ...params })) url.searchParams.set(k, v);
  return url;
}

/** Signs in and approves in a new agent; the URL the browser lands on at the client. */
async function approve(url: URL): Promise<URL> {
  const agent = new FormAgent(auth.issuer);
  const consent = await agent.signIn(await agent.follow(url.href), user);
  const done = await agent.decide(consent, '/authorize/decision', 'approve');
  return new URL(done.url);
}

/** Where /authorize sends the browser without anyone signing in (an error redirect). */
async function redirectOf(url: URL): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual' });
  return new URL(res.headers.get('location')!, auth.issuer);
}

/** The FAPI client's code flow up to the callback, validated by oauth4webapi (state and RFC 9207 iss). */
async function fapiCode(): Promise<{ params: URLSearchParams; verifier: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = await authorizationUrl(fapiClient(), fapiAuth(), {
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: SCOPE,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { params: oauth.validateAuthResponse(as, fapiClient(), await approve(url), state), verifier };
}

describe('RFC 9207: iss in the authorization response', () => {
  it('discovery says so, and oauth4webapi accepts the success and error responses and refuses another iss', async () => {
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    const c: OAuth4WebApi.Client = { client_id: rp.client_id };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = await authorizationUrl(c, oauth.ClientSecretBasic(rp.client_secret!), {
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: SCOPE,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const back = await approve(url);
    expect(back.searchParams.get('iss')).toBe(auth.issuer);
    expect(oauth.validateAuthResponse(as, c, back, state).get('code')).toMatch(/^ac_/);
    // The error response carries iss too: validateAuthResponse checks it before reporting the error.
    const errorBack = await redirectOf(
      urlByValue(c.client_id, { redirect_uri: REDIRECT, response_type: 'token', state }),
    );
    expect(errorBack.searchParams.get('iss')).toBe(auth.issuer);
    expect(() => oauth.validateAuthResponse(as, c, errorBack, state)).toThrow(
      expect.objectContaining({ error: 'unsupported_response_type' }),
    );
    const mixUp = new URL(back);
    mixUp.searchParams.set('iss', 'https://attacker.example');
    expect(() => oauth.validateAuthResponse(as, c, mixUp, state)).toThrow(/iss/);
  });
});

describe('RFC 9701: JWT introspection answers', () => {
  async function clientCredentialsToken(): Promise<string> {
    const c: OAuth4WebApi.Client = { client_id: rp.client_id };
    const res = await oauth.clientCredentialsGrantRequest(
      as,
      c,
      oauth.ClientSecretBasic(rp.client_secret!),
      { scope: 'content:read' },
      insecure,
    );
    return (await oauth.processClientCredentialsResponse(as, c, res)).access_token;
  }

  it('Accept: application/token-introspection+jwt gets a JWT signed with the server key: typ, iss, aud = the client, iat, token_introspection', async () => {
    expect(as.introspection_signing_alg_values_supported).toEqual(['ES256']);
    const token = await clientCredentialsToken();
    const c: OAuth4WebApi.Client = { client_id: rp.client_id, introspection_signed_response_alg: 'ES256' };
    const clientAuth = oauth.ClientSecretBasic(rp.client_secret!);
    const res = await oauth.introspectionRequest(as, c, clientAuth, token, { requestJwtResponse: true, ...insecure });
    expect(res.headers.get('content-type')).toBe('application/token-introspection+jwt');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const jwt = await res.clone().text();
    const answer = await oauth.processIntrospectionResponse(as, c, res);
    expect(answer).toMatchObject({ active: true, client_id: rp.client_id, scope: 'content:read', iss: auth.issuer });
    const verified = await jwtVerify(jwt, createRemoteJWKSet(new URL(as.jwks_uri!)), {
      issuer: auth.issuer,
      audience: rp.client_id,
      typ: 'token-introspection+jwt',
      algorithms: ['ES256'],
    });
    expect(typeof verified.payload.iat).toBe('number');
    expect(verified.payload.token_introspection).toEqual(answer);
    // Without the Accept header: the RFC 7662 JSON, the same answer.
    const plain = await oauth.introspectionRequest(as, { client_id: rp.client_id }, clientAuth, token, insecure);
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await plain.json()).toEqual(answer);
  });

  it('an inactive token is a signed {active: false}', async () => {
    const c: OAuth4WebApi.Client = { client_id: rp.client_id };
    const res = await oauth.introspectionRequest(
      as,
      c,
      oauth.ClientSecretBasic(rp.client_secret!),
      'not-a-token-at-all',
      { requestJwtResponse: true, ...insecure },
    );
    const jwt = await res.text();
    const verified = await jwtVerify(jwt, createRemoteJWKSet(new URL(as.jwks_uri!)), {
      issuer: auth.issuer,
      audience: rp.client_id,
      typ: 'token-introspection+jwt',
    });
    expect(verified.payload.token_introspection).toEqual({ active: false });
  });
});

describe('FAPI 2.0 Security Profile (security_profile: fapi2)', () => {
  it('PKCE S256 + private_key_jwt + DPoP end to end: DPoP-bound access token, refresh bound to the same key', async () => {
    const dpop = oauth.DPoP(fapiClient(), await oauth.generateKeyPair('ES256'));
    const { params, verifier } = await fapiCode();
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      fapiClient(),
      fapiAuth(),
      params,
      REDIRECT,
      verifier,
      { DPoP: dpop, ...insecure },
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, fapiClient(), response);
    expect(tokens.token_type).toBe('dpop');
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as {
      cnf?: { jkt?: string };
      sub: string;
    };
    expect(claims.sub).toBe(user.id);
    expect(claims.cnf?.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      fapiClient(),
      await oauth.refreshTokenGrantRequest(as, fapiClient(), fapiAuth(), tokens.refresh_token!, {
        DPoP: dpop,
        ...insecure,
      }),
    );
    expect(refreshed.token_type).toBe('dpop');
    // A refresh without a proof would be a bearer token: refused.
    const bearer = await oauth.refreshTokenGrantRequest(
      as,
      fapiClient(),
      fapiAuth(),
      refreshed.refresh_token!,
      insecure,
    );
    expect(bearer.status).toBe(400);
    expect(await bearer.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/DPoP/),
    });
  });

  it('codes live at most 60 s for the profile, whatever AUTHORIZATION_CODE_TTL says (600 s here)', async () => {
    const { params } = await fapiCode();
    const ttl = await redis.ttl(`auth:code:${createHash('sha256').update(params.get('code')!).digest('base64url')}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it('refuses an authorization request by value: PAR is required', async () => {
    const state = oauth.generateRandomState();
    const res = await fetch(
      urlByValue(fapi.client_id, {
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: SCOPE,
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    );
    // Shown on auth's page, never redirected: the client's request is not read until it comes through PAR.
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/invalid_request: .*PAR/);
  });

  it('refuses an authorization request without PKCE, and plain PKCE (at the PAR endpoint)', async () => {
    const state = oauth.generateRandomState();
    const base = { redirect_uri: REDIRECT, response_type: 'code', scope: SCOPE, state };
    for (const [extra, description] of [
      [{}, /PKCE/],
      [{ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, /S256/],
    ] as const) {
      await expect(authorizationUrl(fapiClient(), fapiAuth(), { ...base, ...extra })).rejects.toMatchObject({
        error: 'invalid_request',
        error_description: expect.stringMatching(description),
      });
    }
  });

  it('refuses bearer issuance: a code redeemed without a DPoP proof, or with a proof of another algorithm, is refused and not spent', async () => {
    const { params, verifier } = await fapiCode();
    const bare = await oauth.authorizationCodeGrantRequest(
      as,
      fapiClient(),
      fapiAuth(),
      params,
      REDIRECT,
      verifier,
      insecure,
    );
    expect(bare.status).toBe(400);
    expect(await bare.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/DPoP/),
    });
    // A proof made with an algorithm outside the profile's (ES384): refused, the code still not spent.
    const es384 = await oauth.authorizationCodeGrantRequest(as, fapiClient(), fapiAuth(), params, REDIRECT, verifier, {
      DPoP: oauth.DPoP(fapiClient(), await oauth.generateKeyPair('ES384')),
      ...insecure,
    });
    expect(es384.status).toBe(400);
    expect(await es384.json()).toMatchObject({
      error: 'invalid_dpop_proof',
      error_description: expect.stringMatching(/FAPI/),
    });
    const dpop = oauth.DPoP(fapiClient(), await oauth.generateKeyPair('ES256'));
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      fapiClient(),
      await oauth.authorizationCodeGrantRequest(as, fapiClient(), fapiAuth(), params, REDIRECT, verifier, {
        DPoP: dpop,
        ...insecure,
      }),
    );
    expect(tokens.token_type).toBe('dpop');
  });

  it('client authentication: client_secret_basic refused even once the client holds a secret; private_key_jwt only with aud = issuer and a FAPI algorithm', async () => {
    const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${auth.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'rt_unknown', ...form }),
      });
    const assertion = (key: Parameters<SignJWT['sign']>[0], alg: string, kid: string, aud: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg, kid })
        .setIssuer(fapi.client_id)
        .setSubject(fapi.client_id)
        .setAudience(aud)
        .setIssuedAt()
        .setExpirationTime('1m')
        .setJti(randomUUID())
        .sign(key);
    const rsaKey = await importJWK(rsaPrivateJwk, 'RS256');
    const rsa = await token({
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(rsaKey, 'RS256', 'rsa-1', auth.issuer),
    });
    expect(rsa.status).toBe(401);
    expect(await rsa.json()).toMatchObject({
      error: 'invalid_client',
      error_description: expect.stringMatching(/alg/),
    });
    const tokenAud = await token({
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(fapiKey, 'ES256', 'es-1', `${auth.issuer}/token`),
    });
    expect(tokenAud.status).toBe(401);
    expect(await tokenAud.json()).toMatchObject({
      error: 'invalid_client',
      error_description: expect.stringMatching(/aud/),
    });
    // The control: the ES256 key with aud = issuer authenticates; what is refused next is the missing DPoP proof.
    const good = await token({
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(fapiKey, 'ES256', 'es-1', auth.issuer),
    });
    expect(await good.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/DPoP/),
    });
    // A secret given by rotation does not open client_secret_basic (or _post) to the profile's client.
    const { client_secret: secret } = await cli<{ client_secret: string }>(auth, [
      'clients:rotate-secret',
      '--id',
      fapi.client_id,
    ]);
    const basic = await token(
      {},
      { authorization: `Basic ${Buffer.from(`${fapi.client_id}:${secret}`).toString('base64')}` },
    );
    expect(basic.status).toBe(401);
    expect(await basic.json()).toMatchObject({
      error: 'invalid_client',
      error_description: expect.stringMatching(/private_key_jwt/),
    });
  });

  it('registration: a profile client must be confidential with keys and no secret', async () => {
    await expect(
      cli(auth, [
        'clients:create',
        '--name',
        'Not FAPI',
        '--type',
        'confidential',
        '--grant',
        'authorization_code',
        '--redirect-uri',
        REDIRECT,
        '--security-profile',
        'fapi2',
      ]),
    ).rejects.toThrow(/security_profile fapi2/);
  });
});
