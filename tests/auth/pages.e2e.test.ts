import { ALL_GRANTS, cli, createUser, FormAgent, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

// Every HTML page auth serves forbids framing and loads nothing but its inline style, and its forms post
// only to auth (the consent form also to its client's redirect origin); the sign-in session ends by
// POST /logout with the form's CSRF token.

jest.setTimeout(60_000);

let auth: RunningAuth;
let client: CreatedClient;
let user: { id: string; email: string; password: string };
const REDIRECT = 'https://app.example/cb';

beforeAll(async () => {
  auth = await startAuth();
  client = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'pages',
    '--type',
    'confidential',
    ...ALL_GRANTS.flatMap((g) => ['--grant', g]),
    '--scope',
    'content:read',
    '--resource',
    auth.issuer,
    '--redirect-uri',
    REDIRECT,
  ]);
  user = await createUser(auth);
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

function expectProtected(res: Response, formTargets: string[] = []): void {
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('cache-control')).toBe('no-store');
  const csp = Object.fromEntries(
    (res.headers.get('content-security-policy') ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values.join(' ')]),
  );
  expect(csp).toMatchObject({
    'default-src': "'none'",
    'frame-ancestors': "'none'",
    'form-action': ["'self'", ...formTargets].join(' '),
  });
}

describe('HTML page headers', () => {
  it('the /authorize error pages', async () => {
    const queries: Record<string, string>[] = [
      { client_id: 'nope', redirect_uri: REDIRECT },
      { client_id: client.client_id, redirect_uri: 'https://evil.example/cb' },
      {},
    ];
    for (const q of queries) {
      const res = await fetch(
        `${auth.issuer}/authorize?${new URLSearchParams({ response_type: 'code', ...q }).toString()}`,
        { redirect: 'manual' },
      );
      expect(res.status).toBe(400);
      expectProtected(res);
    }
    const expired = await fetch(`${auth.issuer}/authorize/continue?request=${'a'.repeat(24)}`, { redirect: 'manual' });
    expect(expired.status).toBe(400);
    expectProtected(expired);
  });

  it('sign-in, consent (form-action: the redirect origin only), device and sign-out pages', async () => {
    const agent = new FormAgent(auth.issuer);
    const login = await agent.follow(
      `/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, scope: 'content:read' }).toString()}`,
    );
    expectProtected(login.res);
    const consent = await agent.follow('/login', {
      form: {
        csrf: FormAgent.field(login.html, 'csrf'),
        return_to: FormAgent.field(login.html, 'return_to'),
        email: user.email,
        password: user.password,
      },
    });
    expect(consent.html).toContain('action="/authorize/decision"');
    expectProtected(consent.res, ['https://app.example']);
    const device = await agent.follow('/device');
    expect(device.res.status).toBe(200);
    expectProtected(device.res);
    const logout = await agent.follow('/logout');
    expectProtected(logout.res);
    const stranger = new FormAgent(auth.issuer);
    const form = await stranger.follow('/login');
    const wrongPassword = await stranger.request('/login', {
      form: { csrf: FormAgent.field(form.html, 'csrf'), return_to: '/device', email: user.email, password: 'wrong' },
    });
    expect(wrongPassword.status).toBe(401);
    expectProtected(wrongPassword);
  });
});

describe('sign-out', () => {
  it('POST /logout with the CSRF token ends the session on the server and clears the cookie; GET never signs out', async () => {
    const agent = new FormAgent(auth.issuer);
    await agent.signIn(await agent.follow('/login?return_to=/device'), user);
    const sid = agent.cookie('auth_sid');
    expect(sid).toBeTruthy();
    expect((await agent.follow('/device')).html).toContain('action="/device"');

    // GET shows a form and changes nothing; a POST without the token is refused.
    const confirm = await agent.follow('/logout');
    expect(confirm.res.status).toBe(200);
    expect(confirm.html).toContain('action="/logout"');
    expect((await agent.follow('/device')).html).toContain('action="/device"');
    const forged = await agent.request('/logout', { form: { csrf: 'not-the-token' } });
    expect(forged.status).toBe(403);
    expect((await agent.follow('/device')).html).toContain('action="/device"');

    const out = await agent.request('/logout', { form: { csrf: FormAgent.field(confirm.html, 'csrf') } });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().some((c) => /^auth_sid=;/.test(c) && /Max-Age=0/.test(c))).toBe(true);
    expect((await agent.follow('/device')).html).toContain('action="/login"');

    // The old session id is dead on the server too, not only forgotten by this browser.
    const replay = await fetch(`${auth.issuer}/device`, {
      headers: { cookie: `auth_sid=${sid!}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toMatch(/^\/login\?/);
  });
});

describe('sign-in sessions and changes of rights', () => {
  it("a password change ends the account's sign-in sessions; a name change does not", async () => {
    const person = await createUser(auth);
    const agent = new FormAgent(auth.issuer);
    await agent.signIn(await agent.follow('/login?return_to=/device'), person);
    expect((await agent.follow('/device')).html).toContain('action="/device"');

    const renamed = await auth.internal(`/accounts/${person.id}`, { method: 'PATCH', body: { name: 'Renamed' } });
    expect(renamed.status).toBe(200);
    expect((await agent.follow('/device')).html).toContain('action="/device"');

    const changed = await auth.internal(`/accounts/${person.id}`, {
      method: 'PATCH',
      body: { password: 'a-new-password-123' },
    });
    expect(changed.status).toBe(200);
    expect((await agent.follow('/device')).html).toContain('action="/login"');

    // Signing in again with the new password starts a session that works.
    await agent.signIn(await agent.follow('/login?return_to=/device'), { ...person, password: 'a-new-password-123' });
    expect((await agent.follow('/device')).html).toContain('action="/device"');
  });
});
