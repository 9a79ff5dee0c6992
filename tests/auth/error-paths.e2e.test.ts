/**
 * Error paths of the authorization server (RFC 6749 §5.2 error answers) that no other test pinned down: `unauthorized_client`
 * at /token, /device_authorization and /authorize; the error answers of /device_authorization,
 * /revoke and /introspect (docs/auth.md "Errors" fixes what the RFCs leave open); 415 bodies.
 * Every error answer is `{error, error_description}` with `Cache-Control: no-store`.
 */
import { ALL_GRANTS, cli, createUser, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

jest.setTimeout(60_000);

const REDIRECT = 'https://app.example/cb';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let auth: RunningAuth;
let conf: CreatedClient; // every grant
let machine: CreatedClient; // confidential, client_credentials only
let codeOnly: CreatedClient; // confidential, authorization_code only
let pub: CreatedClient; // public, code + device

beforeAll(async () => {
  auth = await startAuth();
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
    '--type',
    'confidential',
    ...ALL_GRANTS.flatMap((g) => ['--grant', g]),
    ...common,
  ]);
  machine = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'machine',
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    ...common,
  ]);
  codeOnly = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'code-only',
    '--type',
    'confidential',
    '--grant',
    'authorization_code',
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
    DEVICE_GRANT,
    ...common,
  ]);
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

const basic = (c: CreatedClient) =>
  `Basic ${Buffer.from(`${c.client_id}:${c.client_secret ?? ''}`).toString('base64')}`;

async function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${auth.issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: (text ? JSON.parse(text) : null) as Record<string, unknown> | null,
  };
}

/** An OAuth error answer: status, `{error, error_description}`, no-store. */
function expectOAuthError(res: Awaited<ReturnType<typeof post>>, status: number, error: string) {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
  expect(res.body).toEqual({ error, error_description: expect.any(String) });
  expect(res.headers.get('cache-control')).toBe('no-store');
}

describe('unauthorized_client: a registered client asking for a grant it does not have', () => {
  it('/token: client_credentials by a client registered for the code flow only', async () => {
    expectOAuthError(
      await post('/token', { grant_type: 'client_credentials' }, { authorization: basic(codeOnly) }),
      400,
      'unauthorized_client',
    );
  });

  it('/token: the device grant by a client without it', async () => {
    expectOAuthError(
      await post('/token', { grant_type: DEVICE_GRANT, device_code: 'dc_whatever' }, { authorization: basic(machine) }),
      400,
      'unauthorized_client',
    );
  });

  it('/token: client_credentials by a public client', async () => {
    expectOAuthError(
      await post('/token', { grant_type: 'client_credentials', client_id: pub.client_id }),
      400,
      'unauthorized_client',
    );
  });

  it('/device_authorization: a client without the device grant', async () => {
    expectOAuthError(
      await post('/device_authorization', {}, { authorization: basic(machine) }),
      400,
      'unauthorized_client',
    );
  });

  it('/authorize: a client without the code grant is redirected with error, state and iss', async () => {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: machine.client_id,
      redirect_uri: REDIRECT,
      state: 'st-9',
      code_challenge: 'h3dTDz4mt3V4CRlpKk1ptVnt5JUyZR-XnsqBD2ZFJ3o',
      code_challenge_method: 'S256',
    });
    const res = await fetch(`${auth.issuer}/authorize?${query.toString()}`, { redirect: 'manual' });
    expect(res.status).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(400);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe('unauthorized_client');
    expect(location.searchParams.get('error_description')).toBeTruthy();
    expect(location.searchParams.get('state')).toBe('st-9');
    expect(location.searchParams.get('iss')).toBe(auth.issuer);
    expect(location.searchParams.get('code')).toBeNull();
  });
});

describe('/device_authorization errors', () => {
  it('an unknown client_id is invalid_client (401)', async () => {
    expectOAuthError(await post('/device_authorization', { client_id: 'no-such-client' }), 401, 'invalid_client');
  });

  it('a scope the client was not registered for is invalid_scope', async () => {
    expectOAuthError(
      await post('/device_authorization', { client_id: pub.client_id, scope: 'admin:all' }),
      400,
      'invalid_scope',
    );
  });

  it('a resource the client may not use is invalid_target', async () => {
    expectOAuthError(
      await post('/device_authorization', { client_id: pub.client_id, resource: 'https://evil.example/' }),
      400,
      'invalid_target',
    );
  });
});

describe('/revoke errors', () => {
  it('a speech API key is unsupported_token_type and stays usable', async () => {
    const user = await createUser(auth);
    const created = (await (
      await auth.internal(`/accounts/${user.id}/api-keys`, { body: { name: 'error-paths' } })
    ).json()) as { key: string };
    expect(created.key).toMatch(/^sk_/);
    expectOAuthError(
      await post('/revoke', { token: created.key }, { authorization: basic(conf) }),
      400,
      'unsupported_token_type',
    );
    expect((await auth.internal('/api-keys/lookup', { body: { key: created.key } })).status).toBe(200);
  });

  it('no client authentication is invalid_client (401) and revokes nothing', async () => {
    const at = (await post('/token', { grant_type: 'client_credentials' }, { authorization: basic(conf) })).body!
      .access_token as string;
    expectOAuthError(await post('/revoke', { token: at }), 401, 'invalid_client');
    expectOAuthError(
      await post('/revoke', { token: at }, { authorization: basic({ ...conf, client_secret: 'wrong' }) }),
      401,
      'invalid_client',
    );
    expect((await post('/introspect', { token: at }, { authorization: basic(conf) })).body).toMatchObject({
      active: true,
    });
  });

  it('a missing token is invalid_request', async () => {
    expectOAuthError(await post('/revoke', {}, { authorization: basic(conf) }), 400, 'invalid_request');
  });

  it("another client's access token is invalid_request and stays active", async () => {
    const at = (await post('/token', { grant_type: 'client_credentials' }, { authorization: basic(machine) })).body!
      .access_token as string;
    expectOAuthError(
      await post('/revoke', { token: at, token_type_hint: 'access_token' }, { authorization: basic(conf) }),
      400,
      'invalid_request',
    );
    // Still active, as its own client learns (conf may not introspect another client's token).
    expect((await post('/introspect', { token: at }, { authorization: basic(machine) })).body).toMatchObject({
      active: true,
    });
  });
});

describe('/introspect errors', () => {
  it('a missing token is invalid_request', async () => {
    expectOAuthError(await post('/introspect', {}, { authorization: basic(conf) }), 400, 'invalid_request');
  });

  it('a wrong secret is invalid_client (401) with a Basic challenge', async () => {
    const res = await post(
      '/introspect',
      { token: 'x' },
      { authorization: basic({ ...conf, client_secret: 'wrong' }) },
    );
    expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('a public client (no secret) may not introspect: invalid_client (401)', async () => {
    expectOAuthError(await post('/introspect', { token: 'x', client_id: pub.client_id }), 401, 'invalid_client');
  });
});

describe('bodies the endpoints do not read', () => {
  it.each(['/token', '/revoke', '/introspect', '/device_authorization'])(
    '%s: a charset other than UTF-8 or a Content-Encoding is 415 invalid_request',
    async (path) => {
      const form = { grant_type: 'client_credentials', token: 'x', client_id: pub.client_id };
      const latin1 = await post(path, form, {
        authorization: basic(conf),
        'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1',
      });
      expectOAuthError(latin1, 415, 'invalid_request');
      expect(latin1.body?.error_description).toBe('unsupported charset');
      const gzip = await post(path, form, { authorization: basic(conf), 'content-encoding': 'gzip' });
      expectOAuthError(gzip, 415, 'invalid_request');
      expect(gzip.body?.error_description).toBe('unsupported content encoding');
    },
  );
});
