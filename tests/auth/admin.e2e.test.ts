import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { SignJWT, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Issuer, type BaseClient } from 'openid-client';
import { eventually, stackEnv } from '@platform/testing';
import { cli, codeFlowTokens, createUser, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';
import { INTERNAL_SECRET as PLATFORM_SECRET, startPlatform, type Platform } from '../gateway/platform';
import type { PublicAccount } from '../../apps/auth/src/accounts/account-model';
import type { PublicAuditEntry } from '../../apps/auth/src/admin/admin-audit';
import type { Page } from '../../apps/auth/src/admin/paging';
import type { PublicClient } from '../../apps/auth/src/clients/clients';
import type { KeyInfo } from '../../apps/auth/src/keys/signing-keys';

// The administration API (/admin/*) of auth started as a process, called with fetch as an operator's
// script would, with tokens obtained by the code flow (openid-client) and client_credentials; and once
// through the gateway: a deleted client's token stops working there.
jest.setTimeout(120_000);

const REDIRECT = 'https://console.example/cb';
let auth: RunningAuth;
let issuer: Issuer<BaseClient>;
let console_: CreatedClient;
let adminAccount: PublicAccount;
let adminToken: string;
let robot: CreatedClient;
const adminUser = { email: `admin.${Date.now()}@example.org`, password: 'admin password 123' };

async function clientToken(base: string, client: CreatedClient, params: Record<string, string>): Promise<Response> {
  return fetch(`${base}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...params }).toString(),
  });
}

async function accessToken(base: string, client: CreatedClient, params: Record<string, string>): Promise<string> {
  const res = await clientToken(base, client, params);
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) throw new Error(`token: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

async function admin(
  method: string,
  route: string,
  init: { token?: string; body?: unknown; base?: string } = {},
): Promise<{ status: number; body: Record<string, unknown>; res: Response }> {
  const token = init.token === undefined ? adminToken : init.token;
  const res = await fetch(`${init.base ?? auth.url}/admin${route}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, res };
}

beforeAll(async () => {
  auth = await startAuth({ KEY_CACHE_SECONDS: '1', KEY_ACTIVATION_DELAY: '3' });
  adminAccount = await cli<PublicAccount>(
    auth,
    [
      'accounts:create',
      '--email',
      adminUser.email,
      '--name',
      'Admin',
      '--password-stdin',
      '--role',
      'ADMIN',
      '--role',
      'USER',
    ],
    adminUser.password,
  );
  console_ = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Admin console',
    '--type',
    'confidential',
    '--grant',
    'authorization_code',
    '--redirect-uri',
    REDIRECT,
    '--scope',
    'admin content:read',
  ]);
  robot = await cli<CreatedClient>(auth, [
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
  issuer = await Issuer.discover(`${auth.url}/.well-known/oauth-authorization-server`);
  const oc = new issuer.Client({
    client_id: console_.client_id,
    client_secret: console_.client_secret!,
    redirect_uris: [REDIRECT],
    response_types: ['code'],
  });
  const set = await codeFlowTokens(auth.url, oc, adminUser, 'admin content:read', REDIRECT);
  adminToken = set.access_token!;
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

describe('who may call it', () => {
  it('an ADMIN account gets the admin scope by the code flow; a USER asking the same client does not, and is refused 403', async () => {
    expect(decodeJwt(adminToken).scope).toBe('admin content:read');
    const user = await createUser(auth);
    const oc = new issuer.Client({
      client_id: console_.client_id,
      client_secret: console_.client_secret!,
      redirect_uris: [REDIRECT],
      response_types: ['code'],
    });
    const set = await codeFlowTokens(auth.url, oc, user, 'admin content:read', REDIRECT);
    expect(set.scope).toBe('content:read');
    expect(decodeJwt(set.access_token!).scope).toBe('content:read');
    const refused = await admin('GET', '/clients', { token: set.access_token! });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'insufficient_scope', error_description: expect.any(String) });
    expect(refused.res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="insufficient_scope".*scope="admin"/);
  });

  it('no token, a malformed or foreign token: 401 invalid_token; a client not registered for admin cannot get the scope', async () => {
    const none = await admin('GET', '/clients', { token: '' });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('invalid_token');
    expect(none.res.headers.get('www-authenticate')).toMatch(/Bearer realm=/);
    const forged = await admin('GET', '/clients', { token: `${adminToken.slice(0, -4)}AAAA` });
    expect(forged.status).toBe(401);
    expect(forged.body.error).toBe('invalid_token');

    const plain = await cli<CreatedClient>(auth, [
      'clients:create',
      '--name',
      'Plain',
      '--type',
      'confidential',
      '--grant',
      'client_credentials',
      '--scope',
      'speech:read',
    ]);
    const asked = await clientToken(auth.url, plain, { scope: 'admin' });
    expect(asked.status).toBe(400);
    expect(await asked.json()).toMatchObject({ error: 'invalid_scope' });
    const other = await admin('GET', '/clients', {
      token: await accessToken(auth.url, plain, { scope: 'speech:read' }),
    });
    expect(other.status).toBe(403);
    expect(other.body.error).toBe('insufficient_scope');
  });

  it('a client registered for the admin scope calls the API for itself (automation), audited as the client', async () => {
    const token = await accessToken(auth.url, robot, { scope: 'admin' });
    const created = await admin('POST', '/clients', {
      token,
      body: {
        name: 'Made by robot',
        type: 'public',
        grant_types: ['authorization_code'],
        redirect_uris: ['https://r.example/cb'],
      },
    });
    expect(created.status).toBe(201);
    const audit = (await admin('GET', '/audit?limit=100')).body as unknown as Page<PublicAuditEntry>;
    expect(audit.items.find((e) => e.target.id === created.body.client_id)).toMatchObject({
      action: 'client.create',
      actor: { type: 'client', id: robot.client_id },
    });
  });
});

describe('DPoP-bound admin tokens (RFC 9449)', () => {
  async function dpopProof(
    key: { privateKey: KeyLike; jwk: JWK },
    htm: string,
    htu: string,
    token?: string,
  ): Promise<string> {
    return new SignJWT({
      htm,
      htu,
      jti: randomUUID(),
      iat: Math.floor(Date.now() / 1000),
      ...(token ? { ath: createHash('sha256').update(token).digest('base64url') } : {}),
    })
      .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk })
      .sign(key.privateKey);
  }

  it('a bound token works only with a proof by its key for this request', async () => {
    const pair = await generateKeyPair('ES256');
    const key = { privateKey: pair.privateKey, jwk: await exportJWK(pair.publicKey) };
    const res = await fetch(`${auth.url}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${robot.client_id}:${robot.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        dpop: await dpopProof(key, 'POST', `${auth.issuer}/token`),
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'admin' }).toString(),
    });
    const { access_token: token, token_type } = (await res.json()) as { access_token: string; token_type: string };
    expect(token_type).toBe('DPoP');
    const url = `${auth.issuer}/admin/keys`;
    const call = (headers: Record<string, string>) => fetch(`${auth.url}/admin/keys`, { headers });

    const asBearer = await call({ authorization: `Bearer ${token}` });
    expect(asBearer.status).toBe(401);
    expect(await asBearer.json()).toMatchObject({ error: 'invalid_token' });
    expect((await call({ authorization: `DPoP ${token}` })).status).toBe(401);
    const other = await generateKeyPair('ES256');
    const otherKey = { privateKey: other.privateKey, jwk: await exportJWK(other.publicKey) };
    const wrongKey = await call({ authorization: `DPoP ${token}`, dpop: await dpopProof(otherKey, 'GET', url, token) });
    expect(wrongKey.status).toBe(401);
    expect(await wrongKey.json()).toMatchObject({ error: 'invalid_dpop_proof' });
    expect(
      (await call({ authorization: `DPoP ${token}`, dpop: await dpopProof(key, 'POST', url, token) })).status,
    ).toBe(401);
    const proof = await dpopProof(key, 'GET', url, token);
    expect((await call({ authorization: `DPoP ${token}`, dpop: proof })).status).toBe(200);
    // A proof is used once.
    expect((await call({ authorization: `DPoP ${token}`, dpop: proof })).status).toBe(401);
  });
});

describe('clients', () => {
  it('create (secret once), get, paged list, update, errors', async () => {
    const created = await admin('POST', '/clients', {
      body: {
        name: 'Reports',
        type: 'confidential',
        grant_types: ['client_credentials'],
        scopes: ['speech:read'],
        resources: [`${auth.issuer}/v1`],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.client_secret).toMatch(/^cs_/);
    const id = created.body.client_id as string;
    const got = await admin('GET', `/clients/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ client_id: id, name: 'Reports', has_secret: true, scopes: ['speech:read'] });
    expect(got.body).not.toHaveProperty('client_secret');

    const updated = await admin('PATCH', `/clients/${id}`, {
      body: {
        grant_types: ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'],
        scopes: ['speech:read', 'content:read'],
        redirect_uris: ['https://reports.example/cb'],
        post_logout_redirect_uris: ['https://reports.example/bye'],
        token_exchange: { allowed_clients: ['platform'] },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      scopes: ['speech:read', 'content:read'],
      redirect_uris: ['https://reports.example/cb'],
      post_logout_redirect_uris: ['https://reports.example/bye'],
      token_exchange: { allowed_clients: ['platform'] },
    });
    // The change applies to token requests at once: the new scope can be granted.
    expect(
      decodeJwt(
        await accessToken(
          auth.url,
          { client_id: id, client_secret: created.body.client_secret as string },
          { scope: 'content:read' },
        ),
      ).scope,
    ).toBe('content:read');

    for (const [body, field] of [
      [{}, 'body'],
      [{ scopes: ['bad scope'] }, 'scopes'],
      [{ client_secret: 'x' }, 'body'],
      [{ redirect_uris: ['not a url'] }, 'redirect_uris'],
      [{ resources: [] }, 'resources'],
    ] as const) {
      const bad = await admin('PATCH', `/clients/${id}`, { body });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({
        error: 'invalid_request',
        error_description: expect.stringContaining(field === 'body' ? '' : field),
      });
    }
    const malformed = await fetch(`${auth.url}/admin/clients/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'invalid_request' });
    expect((await admin('GET', '/clients/no-such-client')).status).toBe(404);
    expect((await admin('GET', '/clients/no-such-client')).body.error).toBe('not_found');
    expect((await admin('PATCH', '/clients/no-such-client', { body: { name: 'x' } })).status).toBe(404);
    const unknownField = await admin('POST', '/clients', {
      body: { name: 'x', type: 'public', grant_types: ['authorization_code'], secret_hash: 'x' },
    });
    expect(unknownField.status).toBe(400);
    const dup = await admin('POST', '/clients', {
      body: { client_id: robot.client_id, name: 'dup', type: 'public', grant_types: ['authorization_code'] },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('conflict');
  });

  it('lists in pages of at most 100, each client once, never a secret', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push(
        (
          await admin('POST', '/clients', {
            body: { name: `Paged ${i}`, type: 'confidential', grant_types: ['client_credentials'] },
          })
        ).body.client_id as string,
      );
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = (await admin('GET', `/clients?limit=2${cursor ? `&cursor=${cursor}` : ''}`))
        .body as unknown as Page<PublicClient>;
      expect(page.items.length).toBeLessThanOrEqual(2);
      expect(JSON.stringify(page)).not.toMatch(/cs_|secretHash|secretSealed/);
      seen.push(...page.items.map((c) => c.client_id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor && pages < 100);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining([...made, robot.client_id, console_.client_id]));
    expect(pages).toBeGreaterThan(3);
    for (const query of ['limit=101', 'limit=0', 'limit=abc', 'cursor=%25%25', 'limit=1&limit=2']) {
      const bad = await admin('GET', `/clients?${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('invalid_request');
    }
  });

  it('a rotated secret: the old one fails at once, the new one works, and the audit log holds neither', async () => {
    const created = (
      await admin('POST', '/clients', {
        body: { name: 'Rotating', type: 'confidential', grant_types: ['client_credentials'], scopes: ['speech:read'] },
      })
    ).body;
    const old = { client_id: created.client_id as string, client_secret: created.client_secret as string };
    expect((await clientToken(auth.url, old, {})).status).toBe(200);
    const rotated = await admin('POST', `/clients/${old.client_id}/secret`);
    expect(rotated.status).toBe(200);
    const fresh = { client_id: old.client_id, client_secret: rotated.body.client_secret as string };
    expect(fresh.client_secret).toMatch(/^cs_/);
    expect(fresh.client_secret).not.toBe(old.client_secret);
    const refused = await clientToken(auth.url, old, {});
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
    expect((await clientToken(auth.url, fresh, {})).status).toBe(200);
    expect((await admin('GET', `/clients/${old.client_id}`)).body).not.toHaveProperty('client_secret');

    const audit = JSON.stringify((await admin('GET', '/audit?limit=100')).body);
    expect(audit).toContain('client.secret.rotate');
    expect(audit).not.toContain(old.client_secret);
    expect(audit).not.toContain(fresh.client_secret);
    expect(audit).not.toMatch(/cs_/);
  });

  it('a deleted client: its token requests fail and the tokens it holds are revoked', async () => {
    const created = (
      await admin('POST', '/clients', {
        body: { name: 'Doomed', type: 'confidential', grant_types: ['client_credentials'], scopes: ['speech:read'] },
      })
    ).body;
    const doomed = { client_id: created.client_id as string, client_secret: created.client_secret as string };
    const token = await accessToken(auth.url, doomed, {});
    const jti = decodeJwt(token).jti!;
    const redis = new Redis(stackEnv().REDIS_URL);
    try {
      expect(await redis.exists(`auth:revoked:jti:${jti}`)).toBe(0);
      const deleted = await admin('DELETE', `/clients/${doomed.client_id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toMatchObject({ client_id: doomed.client_id, deleted: true, revoked_access_tokens: 1 });
      // The key every gateway checks on every request (libs/oauth-resource).
      expect(await redis.exists(`auth:revoked:jti:${jti}`)).toBe(1);
    } finally {
      redis.disconnect();
    }
    const after = await clientToken(auth.url, doomed, {});
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ error: 'invalid_client' });
    expect((await admin('GET', `/clients/${doomed.client_id}`)).status).toBe(404);
    expect((await admin('DELETE', `/clients/${doomed.client_id}`)).status).toBe(404);
    // Its id cannot be registered again while its tokens could still be live.
    const again = await admin('POST', '/clients', {
      body: { client_id: doomed.client_id, name: 'again', type: 'public', grant_types: ['authorization_code'] },
    });
    expect(again.status).toBe(409);
  });

  it("the platform's own page clients (playground, queue dashboard, API reference) cannot be changed or deleted here: 409, and they stay as registered", async () => {
    for (const id of ['playground', 'queue-dashboard', 'api-reference']) {
      const before = await admin('GET', `/clients/${id}`);
      expect(before.status).toBe(200);
      const patched = await admin('PATCH', `/clients/${id}`, { body: { name: 'Renamed' } });
      expect([patched.status, patched.body.error]).toEqual([409, 'conflict']);
      expect(patched.body.error_description).toContain('registered by the platform at every boot');
      const deleted = await admin('DELETE', `/clients/${id}`);
      expect([deleted.status, deleted.body.error]).toEqual([409, 'conflict']);
      expect(await admin('GET', `/clients/${id}`)).toMatchObject({ status: 200, body: before.body });
    }
  });
});

describe('accounts', () => {
  it('paged list filtered by email, get, disable and enable, roles, plan, unlock', async () => {
    const prefix = `acct.${Date.now()}`;
    const users = [];
    for (let i = 0; i < 3; i++) users.push(await createUser(auth, `${prefix}.${i}@example.org`));
    const first = (await admin('GET', `/accounts?email=${encodeURIComponent(prefix.toUpperCase())}&limit=2`))
      .body as unknown as Page<PublicAccount>;
    expect(first.items.map((a) => a.email)).toEqual([`${prefix}.0@example.org`, `${prefix}.1@example.org`]);
    const second = (
      await admin('GET', `/accounts?email=${encodeURIComponent(prefix)}&limit=2&cursor=${first.next_cursor}`)
    ).body as unknown as Page<PublicAccount>;
    expect(second).toEqual({
      items: [expect.objectContaining({ email: `${prefix}.2@example.org` })],
      next_cursor: null,
    });
    expect(JSON.stringify([first, second])).not.toMatch(/password|scrypt/i);
    // A regular expression's characters in the filter are taken literally.
    expect(((await admin('GET', '/accounts?email=.*')).body as unknown as Page<PublicAccount>).items).toEqual([]);

    const target = users[0]!;
    expect((await admin('GET', `/accounts/${target.id}`)).body).toMatchObject({
      id: target.id,
      email: target.email,
      roles: ['USER'],
      status: 'active',
      plan: 'free',
    });
    const login = async () => auth.internal('/login', { body: { email: target.email, password: target.password } });
    const before = (await (await login()).json()) as { access_token: string };

    const disabled = await admin('PATCH', `/accounts/${target.id}`, { body: { status: 'disabled' } });
    expect(disabled.body).toMatchObject({ status: 'disabled' });
    expect((await login()).status).toBe(401);
    const redis = new Redis(stackEnv().REDIS_URL);
    try {
      // changeAccount revoked the account's token before answering.
      expect(await redis.exists(`auth:revoked:jti:${decodeJwt(before.access_token).jti!}`)).toBe(1);
    } finally {
      redis.disconnect();
    }
    expect((await admin('PATCH', `/accounts/${target.id}`, { body: { status: 'active' } })).body).toMatchObject({
      status: 'active',
    });
    expect((await login()).status).toBe(200);
    expect(
      (await admin('PATCH', `/accounts/${target.id}`, { body: { roles: ['MODERATOR', 'USER'], plan: 'pro' } })).body,
    ).toMatchObject({ roles: ['MODERATOR', 'USER'], plan: 'pro' });
    // Plans are a closed set (libs/identity PLAN_NAMES): `constructor` once broke the gateway's plan lookup.
    for (const body of [
      { roles: ['ROOT'] },
      { status: 'gone' },
      { password: 'new password 1' },
      {},
      { plan: '' },
      { plan: 'constructor' },
      { plan: 'platinum' },
      { status: 'constructor' },
    ]) {
      const bad = await admin('PATCH', `/accounts/${target.id}`, { body });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('invalid_request');
    }
    expect((await admin('GET', '/accounts/00000000-0000-0000-0000-000000000000')).status).toBe(404);

    const locked = users[1]!;
    for (let i = 0; i < 5; i++)
      await auth.internal('/login', { body: { email: locked.email, password: 'wrong password!' } });
    expect((await auth.internal('/login', { body: { email: locked.email, password: locked.password } })).status).toBe(
      429,
    );
    expect((await admin('POST', `/accounts/${locked.id}/unlock`)).body).toEqual({ cleared: 1 });
    expect((await auth.internal('/login', { body: { email: locked.email, password: locked.password } })).status).toBe(
      200,
    );

    const audit = ((await admin('GET', '/audit?limit=100')).body as unknown as Page<PublicAuditEntry>).items;
    expect(
      audit.find((e) => e.action === 'account.update' && e.target.id === target.id && e.changes.plan === 'pro'),
    ).toMatchObject({
      actor: { type: 'account', id: adminAccount.id },
      changes: { roles: ['MODERATOR', 'USER'], plan: 'pro' },
    });
    expect(audit.find((e) => e.action === 'account.unlock')).toMatchObject({
      target: { type: 'account', id: locked.id },
    });
  });
});

describe('signing keys', () => {
  it('list, rotate, retire: the retired key leaves /jwks and its tokens stop working at once', async () => {
    const listed = (await admin('GET', '/keys')).body as { items: KeyInfo[] };
    expect(listed.items).toEqual([expect.objectContaining({ status: 'current', signing: true, alg: 'ES256' })]);
    const oldKid = listed.items[0]!.kid;
    const robotToken = await accessToken(auth.url, robot, { scope: 'admin' });
    expect(decodeProtectedHeader(robotToken).kid).toBe(oldKid);

    const rotated = await admin('POST', '/keys/rotate');
    expect(rotated.body).toEqual({ current: expect.any(String), signs_after_seconds: 3 });
    const newKid = rotated.body.current as string;
    expect(((await admin('GET', '/keys')).body as { items: KeyInfo[] }).items.map((k) => [k.kid, k.status])).toEqual([
      [newKid, 'current'],
      [oldKid, 'previous'],
    ]);
    expect((await admin('POST', `/keys/${newKid}/retire`)).status).toBe(409);
    expect((await admin('POST', '/keys/no-such-kid/retire')).status).toBe(404);

    // A token signed by the new key once it signs (KEY_ACTIVATION_DELAY), to retire the old one with.
    let freshToken = '';
    await eventually(
      async () => {
        freshToken = await accessToken(auth.url, robot, { scope: 'admin' });
        return decodeProtectedHeader(freshToken).kid === newKid;
      },
      30_000,
      250,
    );
    const retired = await admin('POST', `/keys/${oldKid}/retire`, { token: freshToken });
    expect(retired.status).toBe(200);
    const jwks = (await (await fetch(`${auth.url}/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([newKid]);
    // Tokens signed by the retired key: refused here at once (the admin API and introspection).
    expect((await admin('GET', '/keys', { token: robotToken })).status).toBe(401);
    expect((await admin('GET', '/keys', { token: adminToken })).status).toBe(401);
    const introspected = await fetch(`${auth.url}/introspect`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${robot.client_id}:${robot.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: robotToken }).toString(),
    });
    expect(await introspected.json()).toEqual({ active: false });
    const audit = (
      (await admin('GET', '/audit?limit=100', { token: freshToken })).body as unknown as Page<PublicAuditEntry>
    ).items;
    expect(audit.find((e) => e.action === 'signing_key.retire')).toMatchObject({
      target: { type: 'signing_key', id: oldKid },
      actor: { type: 'client', id: robot.client_id },
    });
    adminToken = freshToken;
  });
});

describe('audit log', () => {
  it('is paged newest first, every change with its actor, action, target and request id', async () => {
    const res = await admin('PATCH', `/clients/${robot.client_id}`, { body: { name: 'Automation 2' } });
    expect(res.status).toBe(200);
    const requestId = res.res.headers.get('x-request-id');
    const first = (await admin('GET', '/audit?limit=1')).body as unknown as Page<PublicAuditEntry>;
    expect(first.items).toEqual([
      {
        id: expect.any(String),
        at: expect.any(String),
        actor: { type: 'client', id: robot.client_id },
        action: 'client.update',
        target: { type: 'client', id: robot.client_id },
        changes: { name: 'Automation 2' },
        request_id: requestId,
      },
    ]);
    const all: PublicAuditEntry[] = [...first.items];
    let cursor = first.next_cursor;
    while (cursor) {
      const page = (await admin('GET', `/audit?limit=7&cursor=${cursor}`)).body as unknown as Page<PublicAuditEntry>;
      all.push(...page.items);
      cursor = page.next_cursor;
    }
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    expect(all.map((e) => e.at)).toEqual([...all.map((e) => e.at)].sort().reverse());
    expect(new Set(all.map((e) => e.action))).toEqual(
      new Set([
        'client.create',
        'client.update',
        'client.secret.rotate',
        'client.delete',
        'account.create',
        'account.update',
        'account.unlock',
        'signing_key.rotate',
        'signing_key.retire',
      ]),
    );
    // Changes through the API carry their request id; the clients the suite made with the CLI, the operator.
    expect(
      all
        .filter((e) => e.actor.type !== 'cli')
        .every((e) => e.request_id && ['account', 'client'].includes(e.actor.type)),
    ).toBe(true);
    expect(all.filter((e) => e.actor.type === 'cli').map((e) => [e.action, e.target.id, e.request_id])).toEqual(
      expect.arrayContaining([
        ['client.create', robot.client_id, null],
        ['client.create', console_.client_id, null],
      ]),
    );
    expect(JSON.stringify(all)).not.toMatch(/cs_[A-Za-z0-9_-]{20}|secret_?hash|password/i);
    expect((await admin('GET', '/audit?cursor=bm9wZQ')).status).toBe(400);
  });
});

describe('CLI', () => {
  /** A CLI run that must fail: its exit code and what it wrote to stderr. */
  async function cliFailure(args: string[]): Promise<{ code: unknown; stderr: string }> {
    try {
      await cli(auth, args);
    } catch (err) {
      const { code, stderr } = err as { code?: unknown; stderr?: string };
      return { code, stderr: stderr ?? '' };
    }
    throw new Error(`expected ${args[0]} to fail`);
  }

  it('the same operations from the command line, audited as the operating-system user', async () => {
    const made = await cli<CreatedClient>(auth, [
      'clients:create',
      '--name',
      'CLI made',
      '--type',
      'confidential',
      '--grant',
      'client_credentials',
      '--scope',
      'speech:read',
    ]);
    expect((await cli<PublicClient>(auth, ['clients:get', '--id', made.client_id])).name).toBe('CLI made');
    const updated = await cli<PublicClient>(auth, [
      'clients:update',
      '--id',
      made.client_id,
      '--scope',
      'speech:read content:read',
      '--redirect-uri',
      'https://cli.example/cb',
      '--post-logout-redirect-uri',
      'https://cli.example/bye',
      '--exchange-client',
      'platform',
    ]);
    expect(updated).toMatchObject({
      scopes: ['speech:read', 'content:read'],
      redirect_uris: ['https://cli.example/cb'],
      post_logout_redirect_uris: ['https://cli.example/bye'],
      token_exchange: { allowed_clients: ['platform'] },
    });
    const rotated = await cli<{ client_secret: string }>(auth, ['clients:rotate-secret', '--id', made.client_id]);
    // The app caches a client up to 30 seconds per replica; the CLI, another process, cannot clear it:
    // the API above clears it at once. Here: the new secret works (the cache is refreshed on a miss).
    expect(rotated.client_secret).toMatch(/^cs_/);
    expect(await cli(auth, ['clients:delete', '--id', made.client_id])).toMatchObject({ deleted: true });
    expect((await cliFailure(['clients:get', '--id', made.client_id])).stderr).toMatch(/not_found/);
    expect((await cliFailure(['clients:update', '--id', 'no-such-client', '--name', 'x'])).code).toBe(1);

    expect(await cli(auth, ['accounts:get', '--account', adminUser.email.toUpperCase()])).toMatchObject({
      id: adminAccount.id,
    });
    const page = await cli<Page<PublicAccount>>(auth, ['accounts:find', '--email', 'admin.', '--limit', '1']);
    expect(page.items).toHaveLength(1);
    expect((await cliFailure(['accounts:find', '--limit', '500'])).stderr).toMatch(/invalid_request/);

    const keys = await cli<{ items: KeyInfo[] }>(auth, ['keys:list']);
    expect(keys.items[0]).toMatchObject({ status: 'current' });
    expect((await cliFailure(['keys:retire', '--kid', keys.items[0]!.kid])).stderr).toMatch(/conflict/);

    const audit = await cli<Page<PublicAuditEntry>>(auth, ['audit:list', '--limit', '3']);
    expect(audit.items.map((e) => e.action)).toEqual(['client.delete', 'client.secret.rotate', 'client.update']);
    expect(audit.items[0]).toMatchObject({
      actor: { type: 'cli', id: expect.any(String) },
      target: { type: 'client', id: made.client_id },
      request_id: null,
    });
    expect(JSON.stringify(audit)).not.toContain(rotated.client_secret);
  });
});

describe('through the gateway', () => {
  let platform: Platform;
  const run = promisify(execFile);
  const platformCli = async <T>(args: string[]): Promise<T> => {
    const { stdout } = await run(
      process.execPath,
      [path.resolve(__dirname, '../../apps/auth/dist/cli/main.js'), ...args],
      {
        env: {
          PATH: process.env.PATH ?? '',
          ...stackEnv(),
          MONGO_DB: platform.authDb,
          INTERNAL_SECRET: PLATFORM_SECRET,
          PUBLIC_URL: platform.publicUrl,
        },
        timeout: 30_000,
      },
    );
    return JSON.parse(stdout) as T;
  };

  beforeAll(async () => {
    platform = await startPlatform();
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
  });

  it("the gateway forwards /admin; a deleted client's client_credentials token is refused by the gateway at once", async () => {
    const gateway = platform.gateways[0]!.url;
    const ops = await platformCli<CreatedClient>([
      'clients:create',
      '--name',
      'ops',
      '--type',
      'confidential',
      '--grant',
      'client_credentials',
      '--scope',
      'admin',
    ]);
    const svc = await platformCli<CreatedClient>([
      'clients:create',
      '--name',
      'svc',
      '--type',
      'confidential',
      '--grant',
      'client_credentials',
      '--scope',
      'speech:read',
      '--resource',
      `${platform.publicUrl}/v1`,
    ]);
    const opsToken = await accessToken(gateway, ops, { scope: 'admin' });
    const svcToken = await accessToken(gateway, svc, { scope: 'speech:read' });
    const models = () => fetch(`${gateway}/v1/models`, { headers: { authorization: `Bearer ${svcToken}` } });
    expect((await models()).status).toBe(200);

    expect((await admin('GET', '/clients', { base: gateway, token: svcToken })).status).toBe(401); // aud is /v1, not the issuer
    // A JSON body reaches auth through the gateway unchanged.
    const renamed = await admin('PATCH', `/clients/${svc.client_id}`, {
      base: gateway,
      token: opsToken,
      body: { name: 'svc (to be deleted)' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('svc (to be deleted)');
    const deleted = await admin('DELETE', `/clients/${svc.client_id}`, { base: gateway, token: opsToken });
    expect(deleted.status).toBe(200);
    const refused = await models();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/invalid_token/);
    const again = await clientToken(gateway, svc, { scope: 'speech:read' });
    expect(again.status).toBe(401);
    expect(await again.json()).toMatchObject({ error: 'invalid_client' });
  });
});
