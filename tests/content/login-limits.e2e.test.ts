import { api, identityHeader, startAuthApp, startContent, stopContent, type RunningContent } from './helpers';

// REST /auth/login goes through auth's brute-force limits: after 5 wrong passwords for an email the
// answer is 429 {error:{code,message}} with Retry-After, the right password included, and an email
// without an account gets the same answers. The first lock is 60 s here so it outlasts the test.

let auth: Awaited<ReturnType<typeof startAuthApp>>;
let app: RunningContent;

beforeAll(async () => {
  auth = await startAuthApp({ LOGIN_FIRST_LOCK_SECONDS: '60' });
  app = await startContent({ AUTH_URL: auth.url });
}, 120_000);

afterAll(async () => {
  await stopContent(app);
  await auth?.stop();
});

async function login(email: string, password: string) {
  const res = await fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(await identityHeader('anonymous')) },
    body: JSON.stringify({ email, password }),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

it('429 with Retry-After after 5 wrong passwords, the same for an unknown email', async () => {
  const email = `limited.${Date.now()}@example.org`;
  const registered = await api(app, 'POST', '/api/v1/auth/register', {
    caller: 'anonymous',
    body: { name: 'Limited', email, password: 'long enough pw' },
  });
  expect(registered.status).toBe(201);
  const ghost = `ghost.${Date.now()}@example.org`;
  for (let i = 0; i < 5; i++) {
    for (const who of [email, ghost])
      expect(await login(who, 'wrong password')).toEqual({
        status: 401,
        retryAfter: null,
        body: { error: { code: 401, message: 'Invalid credentials.' } },
      });
  }
  const known = await login(email, 'long enough pw');
  const unknown = await login(ghost, 'long enough pw');
  for (const answer of [known, unknown]) {
    expect(answer.status).toBe(429);
    expect(answer.body).toEqual({ error: { code: 429, message: expect.any(String) } });
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(answer.retryAfter)).toBeLessThanOrEqual(60);
  }
  expect(unknown.body).toEqual(known.body);
});
