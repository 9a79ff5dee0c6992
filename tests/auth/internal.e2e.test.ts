import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { Redis } from 'ioredis';
import { stackEnv } from '@platform/testing';
import { INTERNAL_SECRET, startAuth, type RunningAuth } from './helpers/start-auth';

let auth: RunningAuth;
let redis: Redis;

beforeAll(async () => {
  auth = await startAuth();
  redis = new Redis(stackEnv().REDIS_URL);
}, 90_000);

afterAll(async () => {
  await auth?.stop();
  redis?.disconnect();
});

interface LoginBody {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  refresh_expires_in: number;
  account: { id: string; name: string; email: string; roles: string[] };
}

describe('internal API: register → login → refresh', () => {
  it('registers, logs in with any email case, verifies the access token with /jwks, and rotates refresh tokens', async () => {
    const email = `Ada.${Date.now()}@Example.org`;
    const created = await auth.internal('/accounts', {
      body: { name: 'Ada', email, password: 'correct horse battery' },
    });
    expect(created.status).toBe(201);
    const account = (await created.json()) as {
      id: string;
      email: string;
      roles: string[];
      status: string;
      createdAt: string;
    };
    expect(account).toMatchObject({ email, roles: ['USER'], status: 'active' });
    expect(account).not.toHaveProperty('passwordHash');

    const dup = await auth.internal('/accounts', {
      body: { name: 'Ada 2', email: email.toUpperCase(), password: 'another password' },
    });
    expect(dup.status).toBe(409);
    expect(await dup.json()).toMatchObject({ error: 'email_taken' });

    const login = await auth.internal('/login', {
      body: { email: email.toLowerCase(), password: 'correct horse battery' },
    });
    expect(login.status).toBe(200);
    const tokens = (await login.json()) as LoginBody;
    expect(tokens).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_expires_in: 604800,
      account: { id: account.id },
    });

    const jwks = (await (await fetch(`${auth.url}/jwks`)).json()) as JSONWebKeySet;
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, createLocalJWKSet(jwks), {
      issuer: auth.issuer,
      audience: auth.issuer,
      typ: 'at+jwt',
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({ sub: account.id, client_id: 'platform', roles: ['USER'], plan: 'free' });
    expect(String(payload.scope).split(' ')).toEqual(
      expect.arrayContaining(['content:read', 'content:write', 'speech:read', 'speech:write']),
    );

    const refreshed = await auth.internal('/refresh', { body: { refresh_token: tokens.refresh_token } });
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as LoginBody;
    expect(second.refresh_token).not.toBe(tokens.refresh_token);

    // Reusing the first refresh token revokes the whole family: the second one and its access token.
    const reuse = await auth.internal('/refresh', { body: { refresh_token: tokens.refresh_token } });
    expect(reuse.status).toBe(401);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    const afterReuse = await auth.internal('/refresh', { body: { refresh_token: second.refresh_token } });
    expect(afterReuse.status).toBe(401);
    const secondJti = (await jwtVerify(second.access_token, createLocalJWKSet(jwks))).payload.jti;
    expect(await redis.exists(`auth:revoked:jti:${secondJti}`)).toBe(1);
  });

  it('concurrent uses of one refresh token: at most one rotation answers, the others are reuse, and the whole family ends revoked', async () => {
    const email = `Concurrent.${Date.now()}@example.org`;
    expect(
      (await auth.internal('/accounts', { body: { name: 'Con', email, password: 'correct horse battery' } })).status,
    ).toBe(201);
    const tokens = (await (
      await auth.internal('/login', { body: { email, password: 'correct horse battery' } })
    ).json()) as LoginBody;
    const jwks = createLocalJWKSet((await (await fetch(`${auth.url}/jwks`)).json()) as JSONWebKeySet);
    const jtiOf = async (accessToken: string) => (await jwtVerify(accessToken, jwks)).payload.jti;

    const answers = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const res = await auth.internal('/refresh', { body: { refresh_token: tokens.refresh_token } });
        return { status: res.status, body: (await res.json()) as Partial<LoginBody> & { error?: string } };
      }),
    );
    const rotated = answers.filter((a) => a.status === 200);
    expect(rotated.length).toBeLessThanOrEqual(1);
    for (const a of answers)
      if (a.status !== 200)
        expect(a).toEqual({ status: 401, body: expect.objectContaining({ error: 'invalid_grant' }) });
    // Concurrent use is reuse (RFC 9700 §4.14): the family is revoked, including what a winning rotation issued.
    expect(await redis.exists(`auth:revoked:jti:${await jtiOf(tokens.access_token)}`)).toBe(1);
    for (const { body } of rotated) {
      expect(await redis.exists(`auth:revoked:jti:${await jtiOf(body.access_token!)}`)).toBe(1);
      expect((await auth.internal('/refresh', { body: { refresh_token: body.refresh_token } })).status).toBe(401);
    }
  });

  it('refuses wrong passwords, unknown emails, a missing secret, and malformed bodies without a 500', async () => {
    const wrong = await auth.internal('/login', { body: { email: 'nobody@example.org', password: 'whatever12' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });

    const noSecret = await fetch(`${auth.url}/internal/login`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(noSecret.status).toBe(401);

    const bad = await auth.internal('/accounts', { body: { name: '', email: 'not-an-email', password: 'short' } });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: string; fields: Record<string, string> };
    expect(body.error).toBe('invalid_request');
    expect(Object.keys(body.fields).sort()).toEqual(['email', 'name', 'password']);

    const malformed = await fetch(`${auth.url}/internal/accounts`, {
      method: 'POST',
      headers: { 'x-internal-secret': INTERNAL_SECRET, 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(malformed.status).toBe(400);
    const huge = await auth.internal('/accounts', {
      body: { name: 'x'.repeat(20_000), email: 'a@b.io', password: 'longenough' },
    });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses a common password, or one equal to the email or name, when an account is made or its password changed; a plan outside the list too', async () => {
    const email = `Alan.Turing.${Date.now()}@example.org`;
    const refused = async (res: Response, field: string, message: RegExp) => {
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: 'invalid_request',
        error_description: 'invalid fields',
        fields: { [field]: expect.stringMatching(message) },
      });
    };
    await refused(
      await auth.internal('/accounts', { body: { name: 'Alan', email, password: 'qwertyuiop' } }),
      'password',
      /most commonly used/,
    );
    await refused(
      await auth.internal('/accounts', { body: { name: 'Alan', email, password: email.toLowerCase() } }),
      'password',
      /email address or name/,
    );
    await refused(
      await auth.internal('/accounts', {
        body: { name: 'Alan', email, password: 'good password 1', plan: 'constructor' },
      }),
      'plan',
      /must be one of/,
    );
    const created = (await (
      await auth.internal('/accounts', { body: { name: 'Alan Mathison', email, password: 'good password 1' } })
    ).json()) as { id: string };
    // A change of password is checked against the stored email and name, and changes nothing when refused.
    await refused(
      await auth.internal(`/accounts/${created.id}`, { method: 'PATCH', body: { password: 'alan mathison' } }),
      'password',
      /email address or name/,
    );
    await refused(
      await auth.internal(`/accounts/${created.id}`, { method: 'PATCH', body: { password: email.split('@')[0] } }),
      'password',
      /email address or name/,
    );
    await refused(
      await auth.internal(`/accounts/${created.id}`, { method: 'PATCH', body: { password: 'baseball' } }),
      'password',
      /most commonly used/,
    );
    await refused(
      await auth.internal(`/accounts/${created.id}`, { method: 'PATCH', body: { plan: '__proto__' } }),
      'plan',
      /must be one of/,
    );
    expect((await auth.internal('/login', { body: { email, password: 'good password 1' } })).status).toBe(200);
    expect(
      (await auth.internal(`/accounts/${created.id}`, { method: 'PATCH', body: { password: 'another good one 2' } }))
        .status,
    ).toBe(200);
    expect((await auth.internal('/login', { body: { email, password: 'another good one 2' } })).status).toBe(200);
  });

  it('gets and patches accounts, and manages API keys with a lookup that stops working after revocation', async () => {
    const created = (await (
      await auth.internal('/accounts', {
        body: { name: 'Bob', email: `bob.${Date.now()}@example.org`, password: 'bob password 123' },
      })
    ).json()) as { id: string };
    const got = await auth.internal(`/accounts/${created.id}`);
    expect(got.status).toBe(200);
    expect((await auth.internal('/accounts/nope')).status).toBe(404);
    const patched = await auth.internal(`/accounts/${created.id}`, {
      method: 'PATCH',
      body: { roles: ['ADMIN', 'USER'] },
    });
    expect(await patched.json()).toMatchObject({ roles: ['ADMIN', 'USER'] });

    const keyRes = await auth.internal(`/accounts/${created.id}/api-keys`, { body: { name: 'laptop' } });
    expect(keyRes.status).toBe(201);
    const key = (await keyRes.json()) as { id: string; key: string; prefix: string };
    expect(key.key).toMatch(/^sk_[0-9a-f]{64}$/);
    expect(key.key.startsWith(key.prefix)).toBe(true);

    const lookup = await auth.internal('/api-keys/lookup', { body: { key: key.key } });
    expect(await lookup.json()).toEqual({
      accountId: created.id,
      plan: 'free',
      keyId: key.id,
      roles: ['ADMIN', 'USER'],
      scope: 'speech:read speech:write',
    });

    const sub = new Redis(stackEnv().REDIS_URL);
    const message = new Promise<string>((resolve) => sub.on('message', (_c, m: string) => resolve(m)));
    await sub.subscribe('auth:api-key-revoked');
    expect((await auth.internal(`/api-keys/${key.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await message).toBe(key.id);
    sub.disconnect();
    const gone = await auth.internal('/api-keys/lookup', { body: { key: key.key } });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: 'invalid_api_key' });
  });
});
