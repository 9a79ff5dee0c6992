import { decodeJwt } from 'jose';
import { Redis } from 'ioredis';
import { stackEnv } from '@platform/testing';
import { cli, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';
import type { PublicAccount } from '../../apps/auth/src/accounts/account-model';
import type { PublicApiKey } from '../../apps/auth/src/api-keys/api-keys';
import type { PublicClient } from '../../apps/auth/src/clients/clients';

// The admin CLI (apps/auth/dist/cli/main.js), run as operators run it, against the database of an auth
// app started as a process: what it prints, and that what it creates works at the app.
jest.setTimeout(60_000);

let auth: RunningAuth;

beforeAll(async () => {
  auth = await startAuth();
}, 90_000);

afterAll(async () => {
  await auth?.stop();
});

/** A CLI run that must fail: its exit code and what it wrote to stderr. */
async function cliFailure(args: string[], stdin = ''): Promise<{ code: unknown; stderr: string }> {
  try {
    await cli(auth, args, stdin);
  } catch (err) {
    const { code, stderr } = err as { code?: unknown; stderr?: string };
    return { code, stderr: stderr ?? '' };
  }
  throw new Error(`expected ${args[0]} to fail`);
}

const email = `ops.${Date.now()}@Example.org`;
const password = 'operator password 1';

describe('clients', () => {
  it('clients:list shows the created clients, with has_secret/has_jwks but never the secret', async () => {
    const web = await cli<CreatedClient & PublicClient>(auth, [
      'clients:create',
      '--name',
      'Listed app',
      '--type',
      'confidential',
      '--grant',
      'authorization_code',
      '--grant',
      'refresh_token',
      '--redirect-uri',
      'https://app.example/cb',
      '--scope',
      'content:read offline_access',
      '--resource',
      `${auth.issuer}/v1`,
      '--post-logout-redirect-uri',
      'https://app.example/signed-out',
      '--post-logout-redirect-uri',
      'https://app.example/bye',
    ]);
    expect(web.client_secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    const tv = await cli<CreatedClient>(auth, [
      'clients:create',
      '--name',
      'TV',
      '--type',
      'public',
      '--grant',
      'urn:ietf:params:oauth:grant-type:device_code',
      '--client-id',
      'tv-app-1',
    ]);
    expect(tv).not.toHaveProperty('client_secret');

    const list = await cli<PublicClient[]>(auth, ['clients:list']);
    expect(list.find((c) => c.client_id === web.client_id)).toEqual({
      client_id: web.client_id,
      name: 'Listed app',
      type: 'confidential',
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: ['https://app.example/cb'],
      post_logout_redirect_uris: ['https://app.example/signed-out', 'https://app.example/bye'],
      scopes: ['content:read', 'offline_access'],
      resources: [`${auth.issuer}/v1`],
      has_secret: true,
      has_jwks: false,
      token_exchange: { allowed_clients: [] },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // No resource given: the platform (PUBLIC_URL) is the client's resource.
    expect(list.find((c) => c.client_id === 'tv-app-1')).toMatchObject({
      type: 'public',
      has_secret: false,
      resources: [auth.issuer],
      post_logout_redirect_uris: [],
    });
    // The token exchange policy of a registration: the other clients whose tokens it may exchange.
    const exchanger = await cli<PublicClient>(auth, [
      'clients:create',
      '--name',
      'Exchanger',
      '--type',
      'confidential',
      '--grant',
      'urn:ietf:params:oauth:grant-type:token-exchange',
      '--exchange-client',
      'platform',
      '--exchange-client',
      'tv-app-1',
    ]);
    expect(exchanger.token_exchange).toEqual({ allowed_clients: ['platform', 'tv-app-1'] });
    expect(JSON.stringify(list)).not.toContain(web.client_secret!);
  });

  it("refuses, with exit code 1 and the command's usage, a flag the command does not declare, a flag without its value and a missing required flag; creates nothing", async () => {
    // Before the command table every command took every flag and ignored the ones it did not use.
    expect(await cliFailure(['clients:list', '--kid', 'k1'])).toEqual({
      code: 1,
      stderr: expect.stringMatching(/^error: clients:list: unknown flag --kid\n {2}clients:list /),
    });
    expect(
      await cliFailure([
        'clients:create',
        '--name',
        'Typo app',
        '--type',
        'public',
        '--grant',
        'authorization_code',
        '--redirect-url',
        'https://typo.example/cb',
      ]),
    ).toEqual({ code: 1, stderr: expect.stringContaining('clients:create: unknown flag --redirect-url') });
    expect(await cliFailure(['clients:get', '--id'])).toEqual({
      code: 1,
      stderr: expect.stringContaining('clients:get: --id needs a value'),
    });
    expect(await cliFailure(['clients:create', '--name', 'No type app', '--grant', 'authorization_code'])).toEqual({
      code: 1,
      stderr: expect.stringContaining('clients:create: --type is required'),
    });
    expect(
      (await cli<PublicClient[]>(auth, ['clients:list'])).filter((c) => ['Typo app', 'No type app'].includes(c.name)),
    ).toEqual([]);
    expect(await cliFailure(['clients:nope'])).toEqual({
      code: 2,
      stderr: expect.stringMatching(/^unknown command clients:nope\nusage:/),
    });
  });
});

describe('accounts', () => {
  it('accounts:create makes an account that can log in; accounts:list shows it without any password material', async () => {
    const account = await cli<PublicAccount>(
      auth,
      [
        'accounts:create',
        '--email',
        email,
        '--name',
        'Operator',
        '--password-stdin',
        '--role',
        'ADMIN',
        '--role',
        'USER',
        '--plan',
        'pro',
      ],
      password,
    );
    expect(account).toEqual({
      id: expect.any(String),
      name: 'Operator',
      email,
      roles: ['ADMIN', 'USER'],
      status: 'active',
      plan: 'pro',
      createdAt: expect.any(String),
    });

    const list = await cli<PublicAccount[]>(auth, ['accounts:list']);
    expect(list).toContainEqual(account);
    expect(JSON.stringify(list)).not.toMatch(/password|scrypt\$/i);

    const login = await auth.internal('/login', { body: { email: email.toLowerCase(), password } });
    expect(login.status).toBe(200);
    expect(await login.json()).toMatchObject({ account: { id: account.id, roles: ['ADMIN', 'USER'] } });

    expect(
      await cliFailure(
        ['accounts:create', '--email', email.toUpperCase(), '--name', 'Twin', '--password-stdin'],
        password,
      ),
    ).toEqual({ code: 1, stderr: expect.stringContaining('email already registered') });
  });
});

describe('account changes', () => {
  it('accounts:update of the role or status revokes every token the account holds; the refresh token is refused', async () => {
    const target = `demote.${Date.now()}@example.org`;
    const account = await cli<PublicAccount>(
      auth,
      ['accounts:create', '--email', target, '--name', 'To demote', '--password-stdin', '--role', 'ADMIN'],
      password,
    );
    const login = (await (await auth.internal('/login', { body: { email: target, password } })).json()) as {
      access_token: string;
      refresh_token: string;
    };
    const redis = new Redis(stackEnv().REDIS_URL);
    try {
      const revoked = async () => (await redis.exists(`auth:revoked:jti:${decodeJwt(login.access_token).jti!}`)) === 1;
      expect(await revoked()).toBe(false);
      expect(await cli<PublicAccount>(auth, ['accounts:update', '--account', target, '--role', 'USER'])).toMatchObject({
        id: account.id,
        roles: ['USER'],
        status: 'active',
      });
      expect(await revoked()).toBe(true);
    } finally {
      await redis.quit();
    }
    expect((await auth.internal('/refresh', { body: { refresh_token: login.refresh_token } })).status).toBe(401);

    expect(
      await cli<PublicAccount>(auth, ['accounts:update', '--account', account.id, '--status', 'disabled']),
    ).toMatchObject({ status: 'disabled' });
    expect((await auth.internal('/login', { body: { email: target, password } })).status).toBe(401);
    expect(await cliFailure(['accounts:update', '--account', target, '--status', 'frozen'])).toMatchObject({ code: 1 });
  });
});

describe('API keys', () => {
  it('api-keys:create shows the key once; api-keys:list shows only its prefix; api-keys:revoke stops the lookup and tells the gateways', async () => {
    const account = (await cli<PublicAccount[]>(auth, ['accounts:list'])).find((a) => a.email === email)!;
    const created = await cli<PublicApiKey & { key: string }>(auth, [
      'api-keys:create',
      '--account',
      email,
      '--name',
      'ci',
    ]);
    expect(created).toEqual({
      id: expect.stringMatching(/^key_/),
      accountId: account.id,
      name: 'ci',
      prefix: created.key.slice(0, 10),
      createdAt: expect.any(String),
      revoked: false,
      scopes: ['speech:read', 'speech:write'],
      key: expect.stringMatching(/^sk_[0-9a-f]{64}$/),
    });
    const lookup = await auth.internal('/api-keys/lookup', { body: { key: created.key } });
    expect(await lookup.json()).toEqual({
      accountId: account.id,
      plan: 'pro',
      keyId: created.id,
      roles: ['ADMIN', 'USER'],
      scope: 'speech:read speech:write',
    });

    const { key, ...listed } = created;
    // By account id, and across all accounts: the prefix, never the key.
    const mine = await cli<PublicApiKey[]>(auth, ['api-keys:list', '--account', account.id]);
    expect(mine).toEqual([listed]);
    const all = await cli<PublicApiKey[]>(auth, ['api-keys:list']);
    expect(all).toContainEqual(listed);
    for (const output of [mine, all]) expect(JSON.stringify(output)).not.toContain(key.slice(10));

    const sub = new Redis(stackEnv().REDIS_URL);
    try {
      // The channel is shared with every auth on this Redis: wait for this key's id.
      const published = new Promise<string>((resolve) =>
        sub.on('message', (_channel, message: string) => message === created.id && resolve(message)),
      );
      await sub.subscribe('auth:api-key-revoked');
      expect(await cli(auth, ['api-keys:revoke', '--id', created.id])).toEqual({ revoked: created.id });
      expect(await published).toBe(created.id);
    } finally {
      sub.disconnect();
    }
    const gone = await auth.internal('/api-keys/lookup', { body: { key } });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: 'invalid_api_key' });
    expect(await cli<PublicApiKey[]>(auth, ['api-keys:list', '--account', email])).toEqual([
      { ...listed, revoked: true },
    ]);

    expect(await cliFailure(['api-keys:revoke', '--id', created.id])).toEqual({
      code: 1,
      stderr: expect.stringContaining('no such active API key'),
    });
    expect(await cliFailure(['api-keys:create', '--account', 'nobody@example.org'])).toEqual({
      code: 1,
      stderr: expect.stringContaining('--account must name an existing account'),
    });
  });
});

describe('secrets off the command line, every change audited', () => {
  type Audit = {
    items: {
      action: string;
      actor: { type: string };
      target: { type: string; id: string };
      changes: Record<string, unknown>;
      request_id: string | null;
    }[];
  };
  const auditOf = async () => (await cli<Audit>(auth, ['audit:list', '--limit', '100'])).items;

  it('refuses --password (the process table shows it), naming --password-stdin, and creates nothing', async () => {
    const refused = `refused.${Date.now()}@example.org`;
    for (const args of [['--password', 'a long password 1'], ['--password=a long password 1']]) {
      const failure = await cliFailure(['accounts:create', '--email', refused, '--name', 'Refused', ...args]);
      expect(failure).toEqual({ code: 1, stderr: expect.stringContaining('--password is not accepted') });
      expect(failure.stderr).toContain('--password-stdin');
      expect(failure.stderr).not.toContain('a long password 1');
    }
    // Without a terminal to prompt on and without --password-stdin: told both ways.
    expect((await cliFailure(['accounts:create', '--email', refused, '--name', 'Refused'])).stderr).toMatch(
      /run on a terminal to be prompted, or pipe it with --password-stdin/,
    );
    expect((await cli<PublicAccount[]>(auth, ['accounts:list'])).some((a) => a.email === refused)).toBe(false);
  });

  it("accounts:create takes plans and roles from their lists and refuses common or personal passwords, with the API's messages", async () => {
    const other = `closed.${Date.now()}@example.org`;
    const create = (args: string[], secret: string) =>
      cliFailure(['accounts:create', '--email', other, '--name', 'Closed Sets', '--password-stdin', ...args], secret);
    expect((await create(['--plan', 'constructor'], password)).stderr).toMatch(
      /--plan: must be one of free, starter, creator, pro, enterprise/,
    );
    expect((await create(['--role', 'ROOT'], password)).stderr).toMatch(/--role:/);
    expect((await create([], '12345678\n')).stderr).toMatch(/--password: is one of the most commonly used passwords/);
    expect((await create([], 'Closed Sets')).stderr).toMatch(/--password: must not be your email address or name/);
    expect((await cli<PublicAccount[]>(auth, ['accounts:list'])).some((a) => a.email === other)).toBe(false);
    // The piped password is the password, less the newline `echo` adds.
    const made = await cli<PublicAccount>(
      auth,
      ['accounts:create', '--email', other, '--name', 'Closed Sets', '--password-stdin', '--plan', 'creator'],
      `${password}\n`,
    );
    expect(made).toMatchObject({ email: other, plan: 'creator' });
    expect((await auth.internal('/login', { body: { email: other, password } })).status).toBe(200);
  });

  it('accounts:create, api-keys:create, api-keys:revoke and logins:unlock write audit entries, with no secret', async () => {
    const audited = `audited.${Date.now()}@example.org`;
    const account = await cli<PublicAccount>(
      auth,
      ['accounts:create', '--email', audited, '--name', 'Audited', '--password-stdin', '--plan', 'starter'],
      password,
    );
    const key = await cli<PublicApiKey & { key: string }>(auth, [
      'api-keys:create',
      '--account',
      account.id,
      '--name',
      'audited key',
    ]);
    await cli(auth, ['api-keys:revoke', '--id', key.id]);
    await cli(auth, ['logins:unlock', '--email', audited]);
    await cli(auth, ['logins:unlock', '--address', '203.0.113.9']);
    const entries = await auditOf();
    const find = (action: string, id: string) => entries.find((e) => e.action === action && e.target.id === id);
    expect(find('account.create', account.id)).toMatchObject({
      actor: { type: 'cli' },
      target: { type: 'account' },
      changes: { email: audited, name: 'Audited', plan: 'starter', roles: ['USER'] },
      request_id: null,
    });
    expect(find('api_key.create', key.id)).toMatchObject({
      actor: { type: 'cli' },
      target: { type: 'api_key' },
      changes: { accountId: account.id, name: 'audited key' },
    });
    expect(find('api_key.revoke', key.id)).toMatchObject({ actor: { type: 'cli' }, target: { type: 'api_key' } });
    expect(find('logins.unlock', audited)).toMatchObject({
      actor: { type: 'cli' },
      target: { type: 'sign_in_limit' },
      changes: { email: audited, cleared: expect.any(Number) },
    });
    expect(find('logins.unlock', '203.0.113.9')).toMatchObject({ changes: { address: '203.0.113.9' } });
    expect(JSON.stringify(entries)).not.toContain(password);
    expect(JSON.stringify(entries)).not.toContain(key.key.slice(10));
  });
});
