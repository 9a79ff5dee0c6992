import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Issuer } from 'openid-client';
import { freePort, stackEnv } from '@platform/testing';
import { authorizeCode } from '../auth/helpers/fixtures';
import { connectSession, errorOf } from '../speech/support/ws-session';
import { INTERNAL_SECRET, registerAccount, startPlatform, type Account, type Platform } from './platform';

/**
 * Self-service speech API keys (docs/speech.md "API keys"): a signed-in user creates, lists and
 * revokes their own keys at `/v1/api-keys` with their OAuth access token (the first-party login's holds
 * `speech:keys`), through the real gateway,
 * auth and content. The secret is shown once; a scoped key gets only its scopes; another account's
 * key is 404; an API key cannot mint keys; an account holds at most 20 live keys.
 */
let platform: Platform;
let gateway: string;
let alice: Account;
let bob: Account;

interface CreatedKey {
  key_id: string;
  name: string;
  scopes: string[];
  hint: string;
  created_at: string;
  key: string;
}
interface KeyPage {
  api_keys: Array<Omit<CreatedKey, 'key'>>;
  has_more: boolean;
  last_key_id: string | null;
}

async function call(pathname: string, headers: Record<string, string>, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${gateway}${pathname}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as unknown) : undefined };
}

const as = (account: Account) => ({ authorization: `Bearer ${account.token}` });

async function createKey(account: Account, body: unknown): Promise<CreatedKey> {
  const res = await call('/v1/api-keys', as(account), { method: 'POST', body });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body as CreatedKey;
}

async function listAll(account: Account, pageSize: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let after: string | null = null;
  let pages = 0;
  for (;;) {
    const query = new URLSearchParams({ page_size: String(pageSize), ...(after ? { start_after_key_id: after } : {}) });
    const res = await call(`/v1/api-keys?${query}`, as(account));
    expect(res.status).toBe(200);
    const page = res.body as KeyPage;
    pages += 1;
    expect(page.api_keys.length).toBeLessThanOrEqual(pageSize);
    ids.push(...page.api_keys.map((k) => k.key_id));
    if (!page.has_more) return { ids, pages };
    after = page.last_key_id;
  }
}

beforeAll(async () => {
  // Generous rates: this file makes many calls per second from one address and one account.
  platform = await startPlatform({
    gatewayEnv: {
      PLAN_LIMITS_JSON: JSON.stringify({
        free: { rps: 500, concurrency: 100 },
        anonymous: { rps: 500, concurrency: 100 },
      }),
    },
  });
  gateway = platform.gateways[0]!.url;
  alice = await registerAccount(gateway, 'Alice Keys');
  bob = await registerAccount(gateway, 'Bob Keys');
}, 180_000);

afterAll(async () => {
  await platform?.stop();
});

it('creates a key whose secret is shown once and never listed; the key reaches the speech API', async () => {
  const created = await createKey(alice, { name: 'laptop' });
  expect(created).toEqual({
    key_id: expect.stringMatching(/^key_/),
    name: 'laptop',
    scopes: ['speech:read', 'speech:write'],
    hint: created.key.slice(0, 10),
    created_at: expect.any(String),
    key: expect.stringMatching(/^sk_[0-9a-f]{64}$/),
  });
  const list = await call('/v1/api-keys', as(alice));
  expect(list.status).toBe(200);
  expect((list.body as KeyPage).api_keys.map((k) => k.key_id)).toContain(created.key_id);
  expect(list.text).not.toContain(created.key);
  expect((list.body as KeyPage).api_keys.every((k) => !('key' in k))).toBe(true);
  expect((await call('/v1/models', { 'xi-api-key': created.key })).status).toBe(200);
  expect((await call('/v1/user', { 'xi-api-key': created.key })).status).toBe(200);
});

it('a key scoped to speech:read reads but cannot synthesise (403 in the speech shape)', async () => {
  const reader = await createKey(alice, { name: 'reader', scopes: ['speech:read'] });
  expect(reader.scopes).toEqual(['speech:read']);
  expect((await call('/v1/models', { 'xi-api-key': reader.key })).status).toBe(200);
  const tts = await call(
    '/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM',
    { 'xi-api-key': reader.key },
    { method: 'POST', body: { text: 'hello' } },
  );
  expect(tts.status).toBe(403);
  expect(tts.body).toEqual({ detail: { status: 'unauthorized', message: expect.stringContaining('speech:write') } });
  // The stream-input WebSocket honours the key's scopes too.
  const ws = connectSession(`${gateway.replace(/^http/, 'ws')}/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM/stream-input`, {
    'xi-api-key': reader.key,
  });
  await ws.opened;
  ws.ws.send(JSON.stringify({ text: ' ' }));
  expect((await ws.closed).code).toBe(1008);
  expect(errorOf(ws)).toEqual({ status: 'unauthorized', message: expect.stringContaining('speech:write') });
});

it('refuses bad input in the speech shape', async () => {
  for (const body of [
    { name: 'x'.repeat(101) },
    { name: '' },
    { name: 'ok', scopes: ['content:write'] },
    { name: 'ok', scopes: [] },
    { name: 'ok', extra: 1 },
    'not an object',
  ]) {
    const res = await call('/v1/api-keys', as(alice), { method: 'POST', body });
    expect({ body, status: res.status, detail: res.body }).toEqual({
      body,
      status: 400,
      detail: { detail: { status: 'bad_request', message: expect.any(String) } },
    });
  }
  const badPage = await call('/v1/api-keys?page_size=0', as(alice));
  expect(badPage.status).toBe(400);
});

it('an API key cannot create, list or revoke keys', async () => {
  const key = await createKey(bob, { name: 'bob-main' });
  for (const [method, path] of [
    ['POST', '/v1/api-keys'],
    ['GET', '/v1/api-keys'],
    ['DELETE', `/v1/api-keys/${key.key_id}`],
  ] as const) {
    const res = await call(
      path,
      { 'xi-api-key': key.key },
      { method, ...(method === 'POST' ? { body: { name: 'minted' } } : {}) },
    );
    expect({ method, status: res.status, body: res.body }).toEqual({
      method,
      status: 403,
      body: { detail: { status: 'unauthorized', message: expect.stringContaining('access token') } },
    });
  }
  expect((await call('/v1/models', { 'xi-api-key': key.key })).status).toBe(200);
});

it("another account's key id is 404 and stays working; the owner revokes it and its next use is 401", async () => {
  const key = await createKey(alice, { name: 'to revoke' });
  const foreign = await call(`/v1/api-keys/${key.key_id}`, as(bob), { method: 'DELETE' });
  expect(foreign.status).toBe(404);
  expect(foreign.body).toEqual({ detail: { status: 'error', message: 'No such API key.' } });
  expect(((await call('/v1/api-keys', as(bob))).body as KeyPage).api_keys.map((k) => k.key_id)).not.toContain(
    key.key_id,
  );
  expect((await call('/v1/models', { 'xi-api-key': key.key })).status).toBe(200);
  expect((await call('/v1/api-keys/key_doesnotexist00', as(alice), { method: 'DELETE' })).status).toBe(404);

  const revoked = await call(`/v1/api-keys/${key.key_id}`, as(alice), { method: 'DELETE' });
  expect(revoked.status).toBe(204);
  const after = await call('/v1/models', { 'xi-api-key': key.key });
  expect(after.status).toBe(401);
  expect(((await call('/v1/api-keys', as(alice))).body as KeyPage).api_keys.map((k) => k.key_id)).not.toContain(
    key.key_id,
  );
  expect((await call(`/v1/api-keys/${key.key_id}`, as(alice), { method: 'DELETE' })).status).toBe(404);
});

it('lists in pages, and holds at most 20 live keys per account (a revoked key frees its place)', async () => {
  const carol = await registerAccount(gateway, 'Carol Keys');
  const made: string[] = [];
  for (let i = 0; i < 20; i += 1) made.push((await createKey(carol, { name: `key ${i}` })).key_id);
  const paged = await listAll(carol, 7);
  expect(paged.pages).toBe(3);
  expect(paged.ids).toEqual(made);

  const over = await call('/v1/api-keys', as(carol), { method: 'POST', body: { name: 'one too many' } });
  expect(over.status).toBe(400);
  expect(over.body).toEqual({ detail: { status: 'bad_request', message: expect.stringContaining('20') } });
  expect((await listAll(carol, 100)).ids).toHaveLength(20);

  expect((await call(`/v1/api-keys/${made[0]}`, as(carol), { method: 'DELETE' })).status).toBe(204);
  expect((await call('/v1/api-keys', as(carol), { method: 'POST', body: { name: 'replacement' } })).status).toBe(201);
});

it('concurrent creations never pass the bound: every 201 is a live key, and there are at most 20', async () => {
  const dave = await registerAccount(gateway, 'Dave Keys');
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      call('/v1/api-keys', as(dave), { method: 'POST', body: { name: `burst ${i}` } }),
    ),
  );
  const created = answers.filter((a) => a.status === 201).map((a) => (a.body as CreatedKey).key_id);
  expect(answers.every((a) => a.status === 201 || a.status === 400)).toBe(true);
  expect(created.length).toBeLessThanOrEqual(20);
  expect((await listAll(dave, 100)).ids.sort()).toEqual([...created].sort());
});

it('a DPoP-bound user token from the code flow (openid-client, Ed25519 proof key) manages keys too', async () => {
  const publicUrl = platform.publicUrl;
  const redirectUri = `http://127.0.0.1:${await freePort()}/cb`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      path.resolve(__dirname, '../../apps/auth/dist/cli/main.js'),
      ...['clients:create', '--name', 'keys-e2e', '--type', 'confidential', '--grant', 'authorization_code'],
      ...['--redirect-uri', redirectUri, '--scope', 'speech:read speech:write speech:keys'],
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        ...stackEnv(),
        MONGO_DB: platform.authDb,
        INTERNAL_SECRET,
        PUBLIC_URL: publicUrl,
      },
      timeout: 30_000,
    },
  );
  const registered = JSON.parse(stdout) as { client_id: string; client_secret: string };
  const issuer = await Issuer.discover(`${publicUrl}/.well-known/oauth-authorization-server`);
  const client = new issuer.Client({
    client_id: registered.client_id,
    client_secret: registered.client_secret,
    redirect_uris: [redirectUri],
    response_types: ['code'],
  });
  const { privateKey } = generateKeyPairSync('ed25519');
  // Creating and revoking keys needs speech:keys (docs/speech.md "API keys"); api-key-grants.e2e.test.ts has the refusals.
  const { params, verifier, state } = await authorizeCode(
    publicUrl,
    client,
    alice,
    'speech:read speech:write speech:keys',
  );
  const tokens = await client.oauthCallback(
    redirectUri,
    params,
    { code_verifier: verifier, state },
    { DPoP: privateKey },
  );
  expect(tokens.token_type).toBe('DPoP');

  const created = await client.requestResource(`${publicUrl}/v1/api-keys`, tokens.access_token!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'from dpop' }),
    DPoP: privateKey,
  });
  expect(created.statusCode).toBe(201);
  const key = JSON.parse(created.body!.toString()) as CreatedKey;
  const listed = await client.requestResource(`${publicUrl}/v1/api-keys?page_size=100`, tokens.access_token!, {
    DPoP: privateKey,
  });
  expect((JSON.parse(listed.body!.toString()) as KeyPage).api_keys.map((k) => k.key_id)).toContain(key.key_id);
  // Without its proof the bound token is refused (RFC 9449 §7.1).
  expect((await call('/v1/api-keys', { authorization: `DPoP ${tokens.access_token!}` })).status).toBe(401);
  const revoked = await client.requestResource(`${publicUrl}/v1/api-keys/${key.key_id}`, tokens.access_token!, {
    method: 'DELETE',
    DPoP: privateKey,
  });
  expect(revoked.statusCode).toBe(204);
});

it('the routes need a credential: anonymous is 401 in the speech shape', async () => {
  const res = await call('/v1/api-keys', {});
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ detail: { status: expect.any(String), message: expect.any(String) } });
});
