import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, type KeyLike } from 'jose';
import { Issuer, generators, errors as oidcErrors, type BaseClient, type ClientAuthMethod } from 'openid-client';
import { ALL_GRANTS, cli, createUser, FormAgent, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

jest.setTimeout(60_000);

const TRUSTED_ISSUER = 'https://idp.partner.example';
let auth: RunningAuth;
let issuer: Issuer<BaseClient>;
let confidential: CreatedClient;
let assertionKey: KeyLike;
let privateKeyClient: { client_id: string; key: ReturnType<typeof generateKeyPairSync>['privateKey'] };
let user: { id: string; email: string; password: string };
const REDIRECT = 'https://app.example/callback';

beforeAll(async () => {
  const idp = await generateKeyPair('ES256');
  assertionKey = idp.privateKey;
  const idpJwk = { ...(await exportJWK(idp.publicKey)), kid: 'idp-1', alg: 'ES256' };
  auth = await startAuth({
    JWT_BEARER_TRUSTED_ISSUERS: JSON.stringify([
      { issuer: TRUSTED_ISSUER, jwks: { keys: [idpJwk] }, scopes: 'content:read speech:read' },
    ]),
  });
  const common = [
    '--scope',
    'content:read content:write speech:read speech:write offline_access',
    '--resource',
    auth.issuer,
    '--resource',
    `${auth.issuer}/v1`,
  ];
  // --exchange-client platform: the token exchange policy lets this client exchange the first-party login's tokens.
  confidential = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Web app',
    '--type',
    'confidential',
    ...ALL_GRANTS.flatMap((g) => ['--grant', g]),
    '--redirect-uri',
    REDIRECT,
    ...common,
    '--exchange-client',
    'platform',
  ]);

  const pkj = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const jwksFile = path.join(os.tmpdir(), `jwks-${randomUUID()}.json`);
  fs.writeFileSync(
    jwksFile,
    JSON.stringify({ keys: [{ ...pkj.publicKey.export({ format: 'jwk' }), kid: 'pkj-1', alg: 'ES256', use: 'sig' }] }),
  );
  const created = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Service with keys',
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    '--no-secret',
    '--jwks-file',
    jwksFile,
    ...common,
  ]);
  fs.rmSync(jwksFile);
  privateKeyClient = { client_id: created.client_id, key: pkj.privateKey };
  user = await createUser(auth);
  issuer = await Issuer.discover(`${auth.issuer}/.well-known/oauth-authorization-server`);
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

function clientWith(method: ClientAuthMethod): BaseClient {
  return new issuer.Client({
    client_id: confidential.client_id,
    client_secret: confidential.client_secret!,
    token_endpoint_auth_method: method,
    redirect_uris: [REDIRECT],
    response_types: ['code'],
  });
}

describe('discovery', () => {
  it('describes the endpoints, grants, auth methods and DPoP truthfully', () => {
    const m = issuer.metadata;
    expect(m.issuer).toBe(auth.issuer);
    expect(m.token_endpoint).toBe(`${auth.issuer}/token`);
    expect(m.grant_types_supported).toEqual(expect.arrayContaining(ALL_GRANTS));
    expect(m.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining([
        'client_secret_basic',
        'client_secret_post',
        'client_secret_jwt',
        'private_key_jwt',
        'none',
      ]),
    );
    expect(m.code_challenge_methods_supported).toEqual(['S256']);
    expect(m.dpop_signing_alg_values_supported).toContain('ES256');
  });
});

describe('client_credentials with every client authentication method', () => {
  it.each<ClientAuthMethod>(['client_secret_basic', 'client_secret_post', 'client_secret_jwt'])(
    '%s',
    async (method) => {
      const client = clientWith(method);
      const set = await client.grant({ grant_type: 'client_credentials', scope: 'speech:read' });
      expect(set.token_type).toBe('Bearer');
      expect(set.refresh_token).toBeUndefined();
      expect(set.scope).toBe('speech:read');
      const info = await client.introspect(set.access_token!);
      expect(info).toMatchObject({
        active: true,
        client_id: confidential.client_id,
        sub: confidential.client_id,
        scope: 'speech:read',
        iss: auth.issuer,
        token_type: 'Bearer',
      });
    },
  );

  it('private_key_jwt', async () => {
    const client = new issuer.Client(
      { client_id: privateKeyClient.client_id, token_endpoint_auth_method: 'private_key_jwt' },
      {
        keys: [{ ...privateKeyClient.key.export({ format: 'jwk' }), kid: 'pkj-1', alg: 'ES256' }],
      } as never,
    );
    const set = await client.grant({ grant_type: 'client_credentials' });
    expect(set.access_token).toBeTruthy();
  });

  it('a wrong secret is 401 invalid_client with WWW-Authenticate', async () => {
    const res = await fetch(`${auth.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${confidential.client_id}:wrong`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('resource indicators become the audience; a resource not allowed is invalid_target', async () => {
    const client = clientWith('client_secret_basic');
    const set = await client.grant({ grant_type: 'client_credentials', resource: `${auth.issuer}/v1` });
    expect(await client.introspect(set.access_token!)).toMatchObject({ aud: `${auth.issuer}/v1` });
    await expect(
      client.grant({ grant_type: 'client_credentials', resource: 'https://evil.example/' }),
    ).rejects.toMatchObject({ error: 'invalid_target' });
  });

  it('revocation makes introspection inactive; only the owner may revoke', async () => {
    const client = clientWith('client_secret_basic');
    const set = await client.grant({ grant_type: 'client_credentials' });
    await client.revoke(set.access_token!, 'access_token');
    expect(await client.introspect(set.access_token!)).toEqual({ active: false });
    await client.revoke('unknown-token-value');
  });
});

describe('authorization_code with PKCE, refresh rotation, code replay', () => {
  it('signs in, consents, redeems the code once, refreshes, and a replayed code revokes its tokens', async () => {
    const client = clientWith('client_secret_basic');
    const verifier = generators.codeVerifier();
    const state = generators.state();
    const url = client.authorizationUrl({
      scope: 'content:read offline_access',
      state,
      code_challenge: generators.codeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: `${auth.issuer}/v1`,
    });
    const agent = new FormAgent(auth.issuer);
    const login = await agent.follow(url);
    expect(login.html).toContain('action="/login"');
    const consent = await agent.signIn(login, user);
    expect(consent.html).toContain('content:read');
    const done = await agent.decide(consent, '/authorize/decision', 'approve');
    expect(done.url.startsWith(REDIRECT)).toBe(true);
    const params = client.callbackParams(done.url);
    expect(params.state).toBe(state);
    const tokens = await client.oauthCallback(REDIRECT, params, { code_verifier: verifier, state });
    expect(tokens.refresh_token).toMatch(/^rt_/);
    const info = await client.introspect(tokens.access_token!);
    expect(info).toMatchObject({
      active: true,
      sub: user.id,
      aud: `${auth.issuer}/v1`,
      scope: 'content:read offline_access',
    });
    // The account's email is only for tokens granted the email scope.
    expect(info).not.toHaveProperty('username');

    const refreshed = await client.refresh(tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await expect(client.refresh(tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await client.introspect(refreshed.access_token!)).toEqual({ active: false });

    await expect(client.oauthCallback(REDIRECT, params, { code_verifier: verifier, state })).rejects.toBeInstanceOf(
      oidcErrors.OPError,
    );
    expect(await client.introspect(tokens.access_token!)).toEqual({ active: false });
  });

  it('a denied consent redirects with access_denied and the state', async () => {
    const client = clientWith('client_secret_basic');
    const verifier = generators.codeVerifier();
    const agent = new FormAgent(auth.issuer);
    const consent = await agent.signIn(
      await agent.follow(
        client.authorizationUrl({
          scope: 'content:read',
          state: 'st-1',
          code_challenge: generators.codeChallenge(verifier),
          code_challenge_method: 'S256',
        }),
      ),
      user,
    );
    const done = await agent.decide(consent, '/authorize/decision', 'deny');
    const url = new URL(done.url);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('st-1');
  });
});

describe('device flow', () => {
  it('authorizes a device after the user enters the code, and polls to tokens', async () => {
    const client = clientWith('client_secret_basic');
    const handle = await client.deviceAuthorization({ scope: 'speech:read' });
    expect(handle.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(handle.verification_uri).toBe(`${auth.issuer}/device`);
    const agent = new FormAgent(auth.issuer);
    const entry = await agent.signIn(await agent.follow(handle.verification_uri_complete!), user);
    const confirm = await agent.follow('/device', {
      form: { csrf: FormAgent.field(entry.html, 'csrf'), user_code: handle.user_code.toLowerCase() },
    });
    expect(confirm.html).toContain('speech:read');
    const done = await agent.decide(confirm, '/device/decision', 'approve');
    expect(done.html).toContain('Device connected');
    const set = await client.grant({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: handle.device_code,
    });
    expect(await client.introspect(set.access_token!)).toMatchObject({
      active: true,
      sub: user.id,
      scope: 'speech:read',
    });
  });
});

describe('jwt-bearer (RFC 7523)', () => {
  async function assertion(claims: { aud?: string; exp?: number } = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: 'content:read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'idp-1' })
      .setIssuer(TRUSTED_ISSUER)
      .setSubject(user.id)
      .setAudience(claims.aud ?? `${auth.issuer}/token`)
      .setIssuedAt(claims.exp ? claims.exp - 120 : now)
      .setExpirationTime(claims.exp ?? now + 120)
      .setJti(randomUUID())
      .sign(assertionKey);
  }

  it('exchanges a trusted assertion for an access token, once', async () => {
    const client = clientWith('client_secret_basic');
    const jwt = await assertion();
    const set = await client.grant({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt });
    expect(await client.introspect(set.access_token!)).toMatchObject({
      active: true,
      sub: user.id,
      scope: 'content:read',
    });
    await expect(
      client.grant({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('rejects a wrong audience, an expired assertion and an untrusted issuer', async () => {
    const client = clientWith('client_secret_basic');
    for (const jwt of [
      await assertion({ aud: 'https://other.example/token' }),
      await assertion({ exp: Math.floor(Date.now() / 1000) - 60 }),
    ]) {
      await expect(
        client.grant({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt }),
      ).rejects.toMatchObject({ error: 'invalid_grant' });
    }
    const other = await generateKeyPair('ES256');
    const foreign = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('https://unknown.example')
      .setSubject('x')
      .setAudience(auth.issuer)
      .setIssuedAt()
      .setExpirationTime('1m')
      .setJti('j')
      .sign(other.privateKey);
    await expect(
      client.grant({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: foreign }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});

describe('token exchange (RFC 8693)', () => {
  it('down-scopes a user token with an actor, within its audience', async () => {
    const login = (await (
      await auth.internal('/login', { body: { email: user.email, password: user.password } })
    ).json()) as { access_token: string };
    const client = clientWith('client_secret_basic');
    const actor = await client.grant({ grant_type: 'client_credentials', scope: 'speech:read' });
    const set = await client.grant({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: login.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: actor.access_token!,
      actor_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      scope: 'speech:read',
      resource: auth.issuer,
    });
    expect(set.issued_token_type).toBe('urn:ietf:params:oauth:token-type:access_token');
    const info = await client.introspect(set.access_token!);
    expect(info).toMatchObject({
      active: true,
      sub: user.id,
      scope: 'speech:read',
      aud: auth.issuer,
      act: { sub: confidential.client_id },
    });
    await expect(
      client.grant({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: set.access_token!,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        scope: 'speech:write',
      }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
  });
});

describe('DPoP at /token', () => {
  it('binds client_credentials tokens to the proof key (token_type DPoP, cnf.jkt)', async () => {
    const client = clientWith('client_secret_basic');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const set = await client.grant({ grant_type: 'client_credentials' }, { DPoP: privateKey });
    expect(set.token_type).toBe('DPoP');
    const info = (await client.introspect(set.access_token!)) as { cnf?: { jkt?: string }; token_type?: string };
    expect(info.token_type).toBe('DPoP');
    expect(info.cnf?.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
