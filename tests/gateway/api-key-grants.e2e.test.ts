import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Issuer, type BaseClient, type TokenSet } from 'openid-client';
import { freePort, stackEnv } from '@platform/testing';
import { authorizeCode } from '../auth/helpers/fixtures';
import {
  INTERNAL_SECRET,
  createApiKey,
  eventually,
  registerAccount,
  startPlatform,
  type Account,
  type Platform,
} from './platform';

/**
 * API keys minted with an OAuth access token never outgrow or outlive the grant that made them
 * (docs/security.md "Credentials minted from a grant"): minting needs `speech:keys`, a key holds at most
 * the token's speech scopes, and it is revoked with the token, its grant (the refresh token family), its
 * client and the account's rights, on every gateway replica. Two replicas: the revocation must reach the
 * one that did not serve the revoking call.
 */
let platform: Platform;
let replicas: string[];

interface CreatedKey {
  key_id: string;
  scopes: string[];
  key: string;
}

async function call(
  base: string,
  pathname: string,
  headers: Record<string, string>,
  init: { method?: string; body?: unknown } = {},
) {
  const res = await fetch(`${base}${pathname}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function mint(accessToken: string, body: unknown = { name: 'minted' }): Promise<CreatedKey> {
  const res = await call(replicas[0]!, '/v1/api-keys', bearer(accessToken), { method: 'POST', body });
  if (res.status !== 201) throw new Error(`mint: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as CreatedKey;
}

/** The key's answer at `/v1/user` on every replica. */
async function statusesOf(key: string): Promise<number[]> {
  return Promise.all(replicas.map(async (base) => (await call(base, '/v1/user', { 'xi-api-key': key })).status));
}

async function authCli(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.resolve(__dirname, '../../apps/auth/dist/cli/main.js'), ...args],
    {
      env: {
        PATH: process.env.PATH ?? '',
        ...stackEnv(),
        MONGO_DB: platform.authDb,
        INTERNAL_SECRET,
        PUBLIC_URL: platform.publicUrl,
      },
      timeout: 30_000,
    },
  );
  return stdout;
}

/** A confidential code-flow client registered with `scope` (and `more` options of `clients:create`), as openid-client sees it. */
async function registerClient(
  scope: string,
  more: string[] = [],
): Promise<{ client: BaseClient; clientId: string; redirectUri: string }> {
  const redirectUri = `http://127.0.0.1:${await freePort()}/cb`;
  const out = await authCli([
    ...[
      'clients:create',
      '--name',
      'grant-keys',
      '--type',
      'confidential',
      '--grant',
      'authorization_code',
      '--grant',
      'refresh_token',
    ],
    ...['--redirect-uri', redirectUri, '--scope', scope, ...more],
  ]);
  const registered = JSON.parse(out) as { client_id: string; client_secret: string };
  const issuer = await Issuer.discover(`${platform.publicUrl}/.well-known/oauth-authorization-server`);
  const client = new issuer.Client({
    client_id: registered.client_id,
    client_secret: registered.client_secret,
    redirect_uris: [redirectUri],
    response_types: ['code'],
  });
  return { client, clientId: registered.client_id, redirectUri };
}

async function tokensFor(
  registered: { client: BaseClient; redirectUri: string },
  account: Account,
  scope: string,
): Promise<TokenSet> {
  const { params, verifier, state } = await authorizeCode(platform.publicUrl, registered.client, account, scope);
  return registered.client.oauthCallback(registered.redirectUri, params, { code_verifier: verifier, state });
}

async function patchAccount(id: string, patch: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${platform.auth.url}/internal/accounts/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
    body: JSON.stringify(patch),
  });
  if (res.status !== 200) throw new Error(`patch account: ${res.status}`);
}

/** A fresh first-party login (a new grant) of the account: its access token. */
async function login(account: Account): Promise<string> {
  const res = await fetch(`${replicas[0]}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: account.email, password: account.password }),
  });
  if (res.status !== 200) throw new Error(`login: ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

const REVOKED_WITHIN_MS = 10_000;

beforeAll(async () => {
  platform = await startPlatform({
    gateways: 2,
    gatewayEnv: {
      PLAN_LIMITS_JSON: JSON.stringify({
        free: { rps: 500, concurrency: 100 },
        anonymous: { rps: 500, concurrency: 100 },
      }),
    },
  });
  replicas = platform.gateways.map((g) => g.url);
}, 180_000);

afterAll(async () => {
  await platform?.stop();
});

it('a token with speech:write but without speech:keys cannot create or revoke keys (403 in the speech shape); it still lists them', async () => {
  const account = await registerAccount(replicas[0]!, 'Writer Only');
  const app = await registerClient('speech:read speech:write offline_access');
  const tokens = await tokensFor(app, account, 'speech:read speech:write offline_access');
  const refused = await call(replicas[0]!, '/v1/api-keys', bearer(tokens.access_token!), {
    method: 'POST',
    body: { name: 'sneaky' },
  });
  expect(refused).toEqual({
    status: 403,
    body: { detail: { status: 'unauthorized', message: expect.stringContaining('speech:keys') } },
  });

  const adminKey = await createApiKey(platform.auth.url, account.id);
  const revoke = await call(replicas[0]!, `/v1/api-keys/${adminKey.id}`, bearer(tokens.access_token!), {
    method: 'DELETE',
  });
  expect(revoke).toEqual({
    status: 403,
    body: { detail: { status: 'unauthorized', message: expect.stringContaining('speech:keys') } },
  });
  expect(await statusesOf(adminKey.key)).toEqual([200, 200]);

  const list = await call(replicas[0]!, '/v1/api-keys', bearer(tokens.access_token!));
  expect(list.status).toBe(200);
  expect((list.body as { api_keys: { key_id: string }[] }).api_keys.map((k) => k.key_id)).toEqual([adminKey.id]);
});

it('a key never holds more than the token that made it: wider scopes are refused, the default is what the token holds', async () => {
  const account = await registerAccount(replicas[0]!, 'Narrow Token');
  const app = await registerClient('speech:read speech:write speech:keys offline_access');
  const tokens = await tokensFor(app, account, 'speech:write speech:keys');
  expect((await call(replicas[0]!, '/v1/history', bearer(tokens.access_token!))).status).toBe(403);

  const wider = await call(replicas[0]!, '/v1/api-keys', bearer(tokens.access_token!), {
    method: 'POST',
    body: { name: 'wider', scopes: ['speech:read', 'speech:write'] },
  });
  expect(wider).toEqual({
    status: 403,
    body: { detail: { status: 'unauthorized', message: expect.stringContaining('not speech:read') } },
  });

  const key = await mint(tokens.access_token!);
  expect(key.scopes).toEqual(['speech:write']);
  const history = await call(replicas[0]!, '/v1/history', { 'xi-api-key': key.key });
  expect(history).toEqual({
    status: 403,
    body: { detail: { status: 'unauthorized', message: expect.stringContaining('speech:read') } },
  });
});

it('revoking the refresh token (the grant) revokes every key minted in it on every replica; revoking an access token revokes the keys it minted', async () => {
  const account = await registerAccount(replicas[0]!, 'Grant Revoker');
  const app = await registerClient('speech:read speech:write speech:keys offline_access');
  const first = await tokensFor(app, account, 'speech:read speech:write speech:keys offline_access');
  const byFirst = await mint(first.access_token!);
  const second = await app.client.refresh(first.refresh_token!);
  const bySecond = await mint(second.access_token!);
  const adminKey = await createApiKey(platform.auth.url, account.id);
  // Every replica has looked each key up (and cached it) before the revocations.
  for (const key of [byFirst.key, bySecond.key, adminKey.key]) expect(await statusesOf(key)).toEqual([200, 200]);

  await app.client.revoke(first.access_token!, 'access_token');
  await eventually(async () => (await statusesOf(byFirst.key)).every((s) => s === 401), REVOKED_WITHIN_MS);
  expect(await statusesOf(bySecond.key)).toEqual([200, 200]);

  await app.client.revoke(second.refresh_token!, 'refresh_token');
  await eventually(async () => (await statusesOf(bySecond.key)).every((s) => s === 401), REVOKED_WITHIN_MS);
  expect(await statusesOf(adminKey.key)).toEqual([200, 200]);
});

it('deleting the client revokes the keys minted with its tokens on every replica', async () => {
  const account = await registerAccount(replicas[0]!, 'Client Deleted');
  const app = await registerClient('speech:read speech:write speech:keys');
  const tokens = await tokensFor(app, account, 'speech:read speech:write speech:keys');
  const key = await mint(tokens.access_token!);
  const firstParty = await mint(account.token);
  expect(await statusesOf(key.key)).toEqual([200, 200]);

  await authCli(['clients:delete', '--id', app.clientId]);
  await eventually(async () => (await statusesOf(key.key)).every((s) => s === 401), REVOKED_WITHIN_MS);
  expect(await statusesOf(firstParty.key)).toEqual([200, 200]);
});

it("a change of the account's roles revokes the keys minted from its grants (an administrator's key stays); disabling the account stops every key", async () => {
  const account = await registerAccount(replicas[0]!, 'Demoted');
  await patchAccount(account.id, { roles: ['MODERATOR', 'USER'] });
  const minted = await mint(await login(account));
  const adminKey = await createApiKey(platform.auth.url, account.id);
  expect(await statusesOf(minted.key)).toEqual([200, 200]);

  await patchAccount(account.id, { roles: ['USER'] });
  await eventually(async () => (await statusesOf(minted.key)).every((s) => s === 401), REVOKED_WITHIN_MS);
  expect(await statusesOf(adminKey.key)).toEqual([200, 200]);

  // A status change: the key minted since is revoked with the grant, the administrator's one refused while disabled.
  const remint = await mint(await login(account));
  await patchAccount(account.id, { status: 'disabled' });
  await eventually(
    async () => [...(await statusesOf(remint.key)), ...(await statusesOf(adminKey.key))].every((s) => s === 401),
    REVOKED_WITHIN_MS,
  );
  await patchAccount(account.id, { status: 'active' });
  await eventually(async () => (await statusesOf(adminKey.key)).every((s) => s === 200), REVOKED_WITHIN_MS);
  expect(await statusesOf(remint.key)).toEqual([401, 401]);
});

it('an exchanged token (RFC 8693) cannot mint a key, even holding speech:keys: its revocation would not reach the key', async () => {
  const account = await registerAccount(replicas[0]!, 'Exchanged');
  const exchanger = await registerClient('speech:read speech:write speech:keys', [
    '--grant',
    'urn:ietf:params:oauth:grant-type:token-exchange',
    '--exchange-client',
    'platform',
  ]);
  const exchanged = await exchanger.client.grant({
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    subject_token: account.token,
    subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
  });
  expect(exchanged.scope!.split(' ')).toEqual(expect.arrayContaining(['speech:write', 'speech:keys']));
  const refused = await call(replicas[0]!, '/v1/api-keys', bearer(exchanged.access_token!), {
    method: 'POST',
    body: { name: 'delegated' },
  });
  expect(refused).toEqual({
    status: 403,
    body: { detail: { status: 'unauthorized', message: expect.stringContaining('exchanged') } },
  });
  // The same person's own token still mints.
  expect((await mint(account.token)).scopes).toEqual(['speech:read', 'speech:write']);
});
