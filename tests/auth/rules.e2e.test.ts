import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Issuer, errors as oidcErrors, type BaseClient, type TokenSet } from 'openid-client';
import {
  ALL_GRANTS,
  cli,
  codeFlowTokens,
  createUser,
  decideDevice,
  FormAgent,
  type CreatedClient,
} from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

// Rules not covered elsewhere, each through openid-client against auth started as a process: the device
// flow's Deny, revocation of a refresh token (RFC 7009) and refresh-token reuse (RFC 9700 §4.14) reaching
// the whole family, private_key_jwt assertion checks (RFC 7523 §3), and disabled accounts.
jest.setTimeout(60_000);

const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
const REDIRECT = 'https://app.example/callback';
let auth: RunningAuth;
let issuer: Issuer<BaseClient>;
let confidential: CreatedClient;
let keyClient: { client_id: string; key: KeyObject };
let user: { id: string; email: string; password: string };

beforeAll(async () => {
  // A 1 s polling interval keeps openid-client's DeviceFlowHandle.poll() (which waits `interval` before each poll) quick.
  auth = await startAuth({ DEVICE_POLL_INTERVAL: '1' });
  const scope = ['--scope', 'content:read speech:read offline_access'];
  confidential = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Rules app',
    '--type',
    'confidential',
    ...ALL_GRANTS.flatMap((g) => ['--grant', g]),
    '--redirect-uri',
    REDIRECT,
    ...scope,
  ]);
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwksFile = path.join(os.tmpdir(), `jwks-${randomUUID()}.json`);
  fs.writeFileSync(
    jwksFile,
    JSON.stringify({
      keys: [{ ...pair.publicKey.export({ format: 'jwk' }), kid: 'rules-1', alg: 'ES256', use: 'sig' }],
    }),
  );
  try {
    const created = await cli<CreatedClient>(auth, [
      'clients:create',
      '--name',
      'Keyed service',
      '--type',
      'confidential',
      '--grant',
      'client_credentials',
      '--no-secret',
      '--jwks-file',
      jwksFile,
      ...scope,
    ]);
    keyClient = { client_id: created.client_id, key: pair.privateKey };
  } finally {
    fs.rmSync(jwksFile, { force: true });
  }
  user = await createUser(auth);
  issuer = await Issuer.discover(`${auth.issuer}/.well-known/oauth-authorization-server`);
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

function webClient(): BaseClient {
  return new issuer.Client({
    client_id: confidential.client_id,
    client_secret: confidential.client_secret!,
    redirect_uris: [REDIRECT],
    response_types: ['code'],
  });
}

function userTokens(client: BaseClient): Promise<TokenSet> {
  return codeFlowTokens(auth.issuer, client, user, 'content:read offline_access', REDIRECT);
}

/** The OAuth error an openid-client call was refused with, and the HTTP status it came with. */
async function refusal(
  call: Promise<unknown>,
): Promise<{ error?: string; error_description?: string; status?: number }> {
  try {
    await call;
  } catch (err) {
    if (!(err instanceof oidcErrors.OPError)) throw err;
    const { statusCode } = (err as unknown as { response?: { statusCode?: number } }).response ?? {};
    return {
      error: err.error,
      ...(err.error_description ? { error_description: err.error_description } : {}),
      ...(statusCode ? { status: statusCode } : {}),
    };
  }
  throw new Error('expected the authorization server to refuse');
}

describe('device flow: the user denies', () => {
  it('Deny on the verification page makes the polling device get access_denied (400, RFC 6749 §5.2)', async () => {
    const client = webClient();
    const handle = await client.deviceAuthorization({ scope: 'speech:read' });
    // The device polls (openid-client's own loop) while the user decides.
    const polled = handle.poll().then(
      () => ({ tokens: true }),
      (err: unknown) => err,
    );
    const { agent, page } = await decideDevice(auth.issuer, handle, user, 'deny');
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('Request denied');
    expect(page.html).not.toContain('Device connected');
    expect(await polled).toMatchObject({ error: 'access_denied' });

    // On the wire: RFC 8628 §3.5 answers with an RFC 6749 §5.2 error response, i.e. HTTP 400.
    const res = await fetch(`${auth.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${confidential.client_id}:${confidential.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: DEVICE_CODE, device_code: handle.device_code }).toString(),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toMatchObject({ error: 'access_denied' });

    // The user code is retired by the decision: entering it again is refused.
    const entry = await agent.follow('/device');
    const again = await agent.follow('/device', {
      form: { csrf: FormAgent.field(entry.html, 'csrf'), user_code: handle.user_code },
    });
    expect(again.res.status).toBe(400);
    expect(again.html).not.toContain('action="/device/decision"');
  });
});

describe('refresh token families', () => {
  it('POST /revoke of a refresh token (hint refresh_token) refuses it afterwards and deactivates every access token of its family', async () => {
    const client = webClient();
    const first = await userTokens(client);
    const second = await client.refresh(first.refresh_token!);
    const unrelated = await userTokens(client);
    for (const t of [first.access_token!, second.access_token!, second.refresh_token!])
      expect(await client.introspect(t)).toMatchObject({ active: true });

    await client.revoke(second.refresh_token!, 'refresh_token');

    expect(await refusal(client.refresh(second.refresh_token!))).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect(await client.introspect(second.refresh_token!)).toEqual({ active: false });
    expect(await client.introspect(second.access_token!)).toEqual({ active: false });
    expect(await client.introspect(first.access_token!)).toEqual({ active: false });
    // Another grant of the same client and user is another family: untouched.
    expect(await client.introspect(unrelated.access_token!)).toMatchObject({ active: true });
    expect(await client.introspect(unrelated.refresh_token!)).toMatchObject({
      active: true,
      token_type: 'refresh_token',
    });
  });

  it('a wrong token_type_hint does not stop the revocation (RFC 7009 §2.1: the server extends its search)', async () => {
    const client = webClient();
    const set = await userTokens(client);
    await client.revoke(set.refresh_token!, 'access_token');
    expect(await client.introspect(set.refresh_token!)).toEqual({ active: false });
    expect(await client.introspect(set.access_token!)).toEqual({ active: false });
  });

  it('reusing a rotated refresh token also revokes the refresh tokens the rotations issued, and their access tokens', async () => {
    const client = webClient();
    const first = await userTokens(client);
    const second = await client.refresh(first.refresh_token!);
    const third = await client.refresh(second.refresh_token!);
    expect(await client.introspect(third.refresh_token!)).toMatchObject({ active: true });

    expect(await refusal(client.refresh(first.refresh_token!))).toMatchObject({ error: 'invalid_grant', status: 400 });

    // The newest refresh token, never used by anyone, is revoked with the family …
    expect(await client.introspect(third.refresh_token!)).toEqual({ active: false });
    expect(await refusal(client.refresh(third.refresh_token!))).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/revoked/),
    });
    // … and so is the middle one and every access token of the family.
    expect(await refusal(client.refresh(second.refresh_token!))).toMatchObject({ error: 'invalid_grant' });
    for (const t of [first.access_token!, second.access_token!, third.access_token!])
      expect(await client.introspect(t)).toEqual({ active: false });
  });
});

describe('private_key_jwt client authentication (RFC 7523 §3)', () => {
  function keyed(): BaseClient {
    return new issuer.Client({ client_id: keyClient.client_id, token_endpoint_auth_method: 'private_key_jwt' }, {
      keys: [{ ...keyClient.key.export({ format: 'jwk' }), kid: 'rules-1', alg: 'ES256' }],
    } as never);
  }
  const now = () => Math.floor(Date.now() / 1000);
  const cc = { grant_type: 'client_credentials', scope: 'speech:read' };

  it('an assertion works once; its replay (same jti) is 401 invalid_client', async () => {
    const client = keyed();
    const jti = randomUUID();
    const set = await client.grant(cc, { clientAssertionPayload: { jti } });
    expect(await client.introspect(set.access_token!)).toMatchObject({ active: true, client_id: keyClient.client_id });
    expect(await refusal(client.grant(cc, { clientAssertionPayload: { jti } }))).toMatchObject({
      error: 'invalid_client',
      status: 401,
      error_description: expect.stringMatching(/already used/),
    });
  });

  it('aud may be the issuer or the token endpoint; any other audience is 401 invalid_client', async () => {
    const client = keyed();
    expect((await client.grant(cc, { clientAssertionPayload: { aud: auth.issuer } })).access_token).toBeTruthy();
    expect(
      (await client.grant(cc, { clientAssertionPayload: { aud: `${auth.issuer}/token` } })).access_token,
    ).toBeTruthy();
    for (const aud of ['https://other.example/token', `${auth.issuer}/introspect`, [`https://other.example`]]) {
      expect(await refusal(client.grant(cc, { clientAssertionPayload: { aud } }))).toMatchObject({
        error: 'invalid_client',
        status: 401,
      });
    }
  });

  it('an assertion without exp, or already expired, is 401 invalid_client', async () => {
    const client = keyed();
    expect(await refusal(client.grant(cc, { clientAssertionPayload: { exp: undefined } }))).toMatchObject({
      error: 'invalid_client',
      status: 401,
    });
    expect(
      await refusal(client.grant(cc, { clientAssertionPayload: { iat: now() - 120, exp: now() - 60 } })),
    ).toMatchObject({ error: 'invalid_client', status: 401 });
  });

  it('exp more than 10 minutes ahead is refused (RFC 7523 §3 lets the server reject far-future exp); 9 minutes is fine', async () => {
    const client = keyed();
    expect((await client.grant(cc, { clientAssertionPayload: { exp: now() + 540 } })).access_token).toBeTruthy();
    for (const exp of [now() + 900, now() + 86_400]) {
      expect(await refusal(client.grant(cc, { clientAssertionPayload: { exp } }))).toMatchObject({
        error: 'invalid_client',
        status: 401,
        error_description: expect.stringMatching(/10 minutes/),
      });
    }
  });
});

describe('disabled accounts', () => {
  it('are refused at the internal login and refresh, at the sign-in page, in an existing session, and for API keys', async () => {
    const victim = await createUser(auth);
    const before = await auth.internal('/login', { body: { email: victim.email, password: victim.password } });
    expect(before.status).toBe(200);
    const { refresh_token: refreshToken } = (await before.json()) as { refresh_token: string };
    const key = (await (await auth.internal(`/accounts/${victim.id}/api-keys`, { body: { name: 'k' } })).json()) as {
      key: string;
    };
    const signedIn = new FormAgent(auth.issuer);
    const entry = await signedIn.signIn(await signedIn.follow('/device'), victim);
    expect(entry.html).toContain('action="/device"');

    const patched = await auth.internal(`/accounts/${victim.id}`, { method: 'PATCH', body: { status: 'disabled' } });
    expect(await patched.json()).toMatchObject({ status: 'disabled' });

    const login = await auth.internal('/login', { body: { email: victim.email, password: victim.password } });
    expect(login.status).toBe(401);
    // The same answer as a wrong password: the refusal does not tell that the account exists.
    expect(await login.json()).toEqual({ error: 'invalid_grant', error_description: 'email or password is wrong' });
    expect((await auth.internal('/refresh', { body: { refresh_token: refreshToken } })).status).toBe(401);
    expect((await auth.internal('/api-keys/lookup', { body: { key: key.key } })).status).toBe(404);

    const fresh = new FormAgent(auth.issuer);
    const form = await fresh.follow('/device');
    const page = await fresh.follow('/login', {
      form: {
        csrf: FormAgent.field(form.html, 'csrf'),
        return_to: FormAgent.field(form.html, 'return_to'),
        email: victim.email,
        password: victim.password,
      },
    });
    expect(page.res.status).toBe(401);
    expect(page.html).toContain('Email or password is wrong.');
    expect(page.html).toContain('action="/login"');
    expect(fresh.cookie('auth_sid')).toBeUndefined();
    // The session opened while the account was active no longer counts: back to the sign-in page.
    expect((await signedIn.follow('/device')).html).toContain('action="/login"');

    // Control: the same credentials work again once the account is active.
    await auth.internal(`/accounts/${victim.id}`, { method: 'PATCH', body: { status: 'active' } });
    expect((await auth.internal('/login', { body: { email: victim.email, password: victim.password } })).status).toBe(
      200,
    );
  });
});
