import { cli, createUser, FormAgent } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

// Brute-force limits on password checks: per account identifier (5 attempts, then a lock) and per client
// address (a larger budget), refused with 429 + Retry-After before any password is compared, the same
// for accounts that do not exist; an admin unlocks. The first lock is 60 s here so a locked state lasts
// the whole test on a loaded machine (the production default is 1 s, doubling).

jest.setTimeout(60_000);

let auth: RunningAuth;

beforeAll(async () => {
  auth = await startAuth({ LOGIN_FIRST_LOCK_SECONDS: '60', LOGIN_ADDRESS_MAX_FAILURES: '40' });
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

interface Answer {
  status: number;
  retryAfter: string | null;
  message: string;
}

/** One sign-in by the form, as a browser posts it; the page's alert text is what a person sees. */
async function signIn(email: string, password: string): Promise<Answer & { location: string | null }> {
  const agent = new FormAgent(auth.issuer);
  const form = await agent.follow('/login?return_to=/device');
  const res = await agent.request('/login', {
    form: { csrf: FormAgent.field(form.html, 'csrf'), return_to: '/device', email, password },
  });
  const html = await res.text();
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    message: /role="alert">([^<]*)</.exec(html)?.[1] ?? '',
    location: res.headers.get('location'),
  };
}

async function internalLogin(body: Record<string, string>) {
  const res = await auth.internal('/login', { body });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

const unknownEmail = () => `nobody.${Date.now()}.${Math.random().toString(36).slice(2)}@example.org`;

describe('sign-in page limits', () => {
  it('locks an account after 5 wrong passwords: 429 with Retry-After, the right password refused too, an admin unlocks', async () => {
    const user = await createUser(auth);
    for (let i = 0; i < 5; i++) expect((await signIn(user.email, 'wrong-password')).status).toBe(401);
    const locked = await signIn(user.email, 'wrong-password');
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(locked.retryAfter)).toBeLessThanOrEqual(60);
    const right = await signIn(user.email, user.password);
    expect(right.status).toBe(429);
    expect(right.location).toBeNull();
    // The identifier is normalised: other case and spaces are the same account.
    expect((await signIn(` ${user.email.toUpperCase()} `, user.password)).status).toBe(429);
    // Content's login goes through the same limit.
    const viaInternal = await internalLogin({
      email: user.email,
      password: user.password,
      client_address: '192.0.2.10',
    });
    expect(viaInternal.status).toBe(429);
    expect(viaInternal.body).toEqual({
      error: 'too_many_attempts',
      error_description: expect.any(String),
      retry_after: Number(viaInternal.retryAfter),
    });

    expect(await cli(auth, ['logins:unlock', '--email', user.email])).toEqual({ cleared: 1 });
    const after = await signIn(user.email, user.password);
    expect(after.status).toBe(303);
    expect(after.location).toBe('/device');
  });

  it('an unknown account gets exactly the same answers', async () => {
    const user = await createUser(auth);
    const ghost = unknownEmail();
    for (let i = 0; i < 6; i++) {
      const known = await signIn(user.email, 'wrong-password');
      const unknown = await signIn(ghost, 'wrong-password');
      expect({ status: unknown.status, message: unknown.message, retryAfter: unknown.retryAfter === null }).toEqual({
        status: known.status,
        message: known.message,
        retryAfter: known.retryAfter === null,
      });
      expect(unknown.status).toBe(i < 5 ? 401 : 429);
    }
    await cli(auth, ['logins:unlock', '--email', user.email]);
    await cli(auth, ['logins:unlock', '--email', ghost]);
  });

  it('a success clears the account counter', async () => {
    const user = await createUser(auth);
    for (let i = 0; i < 4; i++) expect((await signIn(user.email, 'wrong-password')).status).toBe(401);
    expect((await signIn(user.email, user.password)).status).toBe(303);
    for (let i = 0; i < 4; i++) expect((await signIn(user.email, 'wrong-password')).status).toBe(401);
    expect((await signIn(user.email, user.password)).status).toBe(303);
  });

  it('concurrent guesses cannot slip past the limit: of 20 at once, at most 5 are compared', async () => {
    const user = await createUser(auth);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        internalLogin({ email: user.email, password: 'wrong-password', client_address: '192.0.2.20' }),
      ),
    );
    expect(answers.filter((a) => a.status === 401).length).toBeLessThanOrEqual(5);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(15);
    expect(answers.every((a) => a.status === 401 || a.status === 429)).toBe(true);
    // The internal unlock route (for the platform's admin tools) ends the lock as the CLI does.
    const unlocked = await auth.internal('/login-locks/unlock', { body: { email: user.email } });
    expect(await unlocked.json()).toEqual({ cleared: 1 });
    expect(
      (await internalLogin({ email: user.email, password: user.password, client_address: '192.0.2.20' })).status,
    ).toBe(200);
  });
});

describe('per-address limit', () => {
  it('one address spraying many accounts is locked after its budget; other addresses are not', async () => {
    const address = '198.51.100.7';
    for (let i = 0; i < 40; i++)
      expect(
        (await internalLogin({ email: unknownEmail(), password: 'wrong-password', client_address: address })).status,
      ).toBe(401);
    const user = await createUser(auth);
    const refused = await internalLogin({ email: user.email, password: user.password, client_address: address });
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(
      (await internalLogin({ email: user.email, password: user.password, client_address: '198.51.100.8' })).status,
    ).toBe(200);
    expect(await cli(auth, ['logins:unlock', '--address', address])).toEqual({ cleared: 1 });
    expect((await internalLogin({ email: user.email, password: user.password, client_address: address })).status).toBe(
      200,
    );
  });

  it('unlock needs a target', async () => {
    const res = await auth.internal('/login-locks/unlock', { body: {} });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });
});
