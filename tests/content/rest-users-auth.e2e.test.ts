import { decodeJwt } from 'jose';
import { api, seedUser, startAuthApp, startContent, stopContent, type RunningContent, type TestUser } from './helpers';

let auth: Awaited<ReturnType<typeof startAuthApp>>;
let app: RunningContent;

beforeAll(async () => {
  auth = await startAuthApp();
  app = await startContent({ AUTH_URL: auth.url });
}, 120_000);

afterAll(async () => {
  await stopContent(app);
  await auth?.stop();
});

describe('auth through auth: register, login, refresh', () => {
  const email = `reader.${Date.now()}@example.org`;
  let accountId = '';
  let refreshToken = '';

  it('registers: 201 {message, user} without password', async () => {
    const res = await api(app, 'POST', '/api/v1/auth/register', {
      caller: 'anonymous',
      body: { name: 'Reader', email, password: 'long enough pw' },
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      message: expect.any(String),
      user: expect.objectContaining({
        id: expect.any(String),
        name: 'Reader',
        email: email.toLowerCase(),
        roles: ['ROLE_USER'],
      }),
    });
    expect(JSON.stringify(res.json)).not.toMatch(/password/i);
    accountId = (res.json.user as { id: string }).id;
  });

  it('register validation: 400 {errors} naming each property, duplicate email included', async () => {
    const bad = await api(app, 'POST', '/api/v1/auth/register', {
      caller: 'anonymous',
      body: { name: '', email: 'not-an-email', password: 'short' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({
      errors: { name: expect.any(String), email: expect.any(String), password: expect.any(String) },
    });
    const injected = await api(app, 'POST', '/api/v1/auth/register', {
      caller: 'anonymous',
      body: { name: 'x', email: { $gt: '' }, password: 'long enough pw' },
    });
    expect(injected.json).toEqual({ errors: { email: expect.any(String) } });
    const dup = await api(app, 'POST', '/api/v1/auth/register', {
      caller: 'anonymous',
      body: { name: 'Again', email, password: 'long enough pw' },
    });
    expect(dup.status).toBe(400);
    expect(dup.json).toEqual({ errors: { email: expect.any(String) } });
  });

  it("register refuses a common password and one equal to the email or name, with auth's message; no account is made", async () => {
    const fresh = `Grace.Hopper.${Date.now()}@example.org`;
    const cases: [Record<string, string>, string][] = [
      [{ password: '12345678' }, 'is one of the most commonly used passwords; choose another'],
      [{ password: 'Password1' }, 'is one of the most commonly used passwords; choose another'],
      [{ password: fresh.toUpperCase() }, 'must not be your email address or name'],
      [{ password: fresh.split('@')[0]! }, 'must not be your email address or name'],
      [{ name: 'Grace Brewster Hopper', password: 'grace brewster hopper' }, 'must not be your email address or name'],
    ];
    for (const [fields, message] of cases) {
      const res = await api(app, 'POST', '/api/v1/auth/register', {
        caller: 'anonymous',
        body: { name: 'Grace', email: fresh, ...fields },
      });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ errors: { password: message } });
    }
    const login = await api(app, 'POST', '/api/v1/auth/login', {
      caller: 'anonymous',
      body: { email: fresh, password: '12345678' },
    });
    expect(login.status).toBe(401);
  });

  it('logs in: token (JWT for the account, 3600 s) and refresh token', async () => {
    const res = await api(app, 'POST', '/api/v1/auth/login', {
      caller: 'anonymous',
      body: { email, password: 'long enough pw' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_expires_in: 604800,
    });
    expect(decodeJwt(res.json.token as string).sub).toBe(accountId);
    refreshToken = res.json.refresh_token as string;
    const wrong = await api(app, 'POST', '/api/v1/auth/login', {
      caller: 'anonymous',
      body: { email, password: 'wrong password' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: { code: 401, message: expect.any(String) } });
    const missing = await api(app, 'POST', '/api/v1/auth/login', { caller: 'anonymous', body: { email } });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({ errors: { password: expect.any(String) } });
    const injected = await api(app, 'POST', '/api/v1/auth/login', {
      caller: 'anonymous',
      body: { email, password: { $gt: '' } },
    });
    expect(injected.status).toBe(400);
  });

  it('refreshes with {refresh_token}, rotating it; a used or bogus token is 401', async () => {
    const res = await api(app, 'POST', '/api/v1/auth/refresh', {
      caller: 'anonymous',
      body: { refresh_token: refreshToken },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ token: expect.any(String), refresh_token: expect.any(String), expires_in: 3600 });
    expect(res.json.refresh_token).not.toBe(refreshToken);
    const bogus = await api(app, 'POST', '/api/v1/auth/refresh', {
      caller: 'anonymous',
      body: { refresh_token: 'nope' },
    });
    expect(bogus.status).toBe(401);
    expect(bogus.json).toEqual({ error: { code: 401, message: expect.any(String) } });
    const missing = await api(app, 'POST', '/api/v1/auth/refresh', { caller: 'anonymous', body: {} });
    expect(missing.json).toEqual({ errors: { refresh_token: expect.any(String) } });
  });

  it('provisions the profile of an account created in auth directly on first use', async () => {
    const created = await fetch(`${auth.url}/internal/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-secret': 'content-tests-internal-secret-0123456789' },
      body: JSON.stringify({ name: 'Direct', email: `direct.${Date.now()}@example.org`, password: 'long enough pw' }),
    });
    const account = (await created.json()) as { id: string };
    const me = await api(app, 'GET', '/api/v1/users/me', { caller: { id: account.id, role: 'USER' } });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ id: account.id, name: 'Direct' });
  });
});

describe('users', () => {
  let u1: TestUser;
  let u2: TestUser;
  let admin: TestUser;
  beforeAll(async () => {
    u1 = await seedUser(app, { name: 'First' });
    u2 = await seedUser(app, { name: 'Second' });
    admin = await seedUser(app, { name: 'Boss', role: 'ADMIN' });
  });

  it('GET /users lists profiles with meta, hiding other users’ email', async () => {
    const res = await api(app, 'GET', '/api/v1/users?limit=100', { caller: u1 });
    expect(res.status).toBe(200);
    const data = res.json.data as Record<string, unknown>[];
    expect(res.json.meta).toMatchObject({ page: 1, limit: 100, total: data.length });
    const self = data.find((u) => u.id === u1.id)!;
    const other = data.find((u) => u.id === u2.id)!;
    expect(self.email).toBe(u1.email);
    expect(other).not.toHaveProperty('email');
    expect(JSON.stringify(data)).not.toMatch(/password/i);
    const asAdmin = await api(app, 'GET', '/api/v1/users?limit=100', { caller: admin });
    expect((asAdmin.json.data as Record<string, unknown>[]).find((u) => u.id === u2.id)!.email).toBe(u2.email);
    expect((await api(app, 'GET', '/api/v1/users?limit=1000', { caller: u1 })).status).toBe(400);
  });

  it('GET /users/{id}: profile, 404 {error} when unknown', async () => {
    const res = await api(app, 'GET', `/api/v1/users/${u2.id}`, { caller: u1 });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: u2.id, name: 'Second', roles: ['ROLE_USER'] });
    expect(res.json).not.toHaveProperty('email');
    const missing = await api(app, 'GET', '/api/v1/users/nobody', { caller: u1 });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: expect.any(String) });
  });

  it('PUT /users updates the caller’s own profile', async () => {
    const res = await api(app, 'PUT', '/api/v1/users', {
      caller: u1,
      body: { name: 'First Renamed', avatar: 'https://example.org/a.png' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: u1.id,
      name: 'First Renamed',
      avatar: 'https://example.org/a.png',
      email: u1.email,
    });
  });

  it('PUT /users/{id}: own profile or ROLE_ADMIN; 403 otherwise; validation names properties', async () => {
    const forbidden = await api(app, 'PUT', `/api/v1/users/${u2.id}`, { caller: u1, body: { name: 'Hijacked' } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json).toEqual({ error: expect.any(String) });
    const own = await api(app, 'PUT', `/api/v1/users/${u2.id}`, { caller: u2, body: { name: 'Second Renamed' } });
    expect(own.status).toBe(200);
    expect(own.json.name).toBe('Second Renamed');
    const byAdmin = await api(app, 'PUT', `/api/v1/users/${u2.id}`, { caller: admin, body: { name: 'Set By Admin' } });
    expect(byAdmin.status).toBe(200);
    const invalid = await api(app, 'PUT', `/api/v1/users/${u2.id}`, {
      caller: u2,
      body: { name: 7, avatar: 'ftp://x', password: 'x' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toEqual({
      errors: { name: expect.any(String), avatar: expect.any(String), password: expect.any(String) },
    });
    const roleByUser = await api(app, 'PUT', `/api/v1/users/${u2.id}`, {
      caller: u2,
      body: { name: 'x', roles: ['ROLE_ADMIN'] },
    });
    expect(roleByUser.status).toBe(403);
    // Roles are a closed set: names of Object.prototype members are not roles either.
    for (const role of ['constructor', '__proto__', 'toString']) {
      const notARole = await api(app, 'PUT', `/api/v1/users/${u2.id}`, {
        caller: admin,
        body: { name: 'x', roles: [role] },
      });
      expect(notARole.status).toBe(400);
      expect(notARole.json).toEqual({ errors: { roles: expect.any(String) } });
    }
    const unknown = await api(app, 'PUT', '/api/v1/users/nobody', { caller: admin, body: { name: 'x' } });
    expect(unknown.status).toBe(404);
    const after = await api(app, 'GET', `/api/v1/users/${u2.id}`, { caller: u2 });
    expect(after.json).toMatchObject({ name: 'Set By Admin', roles: ['ROLE_USER'] });
  });
});
