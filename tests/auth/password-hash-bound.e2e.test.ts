import { startAuth, type RunningAuth } from './helpers/start-auth';

// Password hashing (scrypt) is bounded per replica: with every slot taken and the queue full, a
// password check is refused at once with 503 `temporarily_unavailable` and Retry-After, never a 500,
// and the replica keeps serving everything else.

jest.setTimeout(120_000);

let auth: RunningAuth;

beforeAll(async () => {
  // One hash at a time and no queue, and address limits far away, so only the hash bound can refuse.
  auth = await startAuth({
    PASSWORD_HASH_CONCURRENCY: '1',
    PASSWORD_HASH_QUEUE: '0',
    LOGIN_ADDRESS_MAX_FAILURES: '100000',
  });
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

it('concurrent password checks beyond the bound get 503 temporarily_unavailable, the rest their answer', async () => {
  const seen = new Map<number, number>();
  let busy: { body: unknown; retryAfter: string | null } | undefined;
  // Bursts of concurrent sign-ins (each a different unknown email, so each is hashed against the dummy
  // hash and no per-account limit applies) until one finds the only slot taken; at most 20 bursts.
  for (let burst = 0; burst < 20 && !busy; burst += 1) {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        auth.internal('/login', { body: { email: `nobody-${burst}-${i}@example.org`, password: 'wrong-password' } }),
      ),
    );
    for (const res of answers) {
      seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
      const body = (await res.json()) as { error?: string };
      if (res.status === 503) busy = { body, retryAfter: res.headers.get('retry-after') };
      else
        expect({ status: res.status, body }).toEqual({
          status: 401,
          body: expect.objectContaining({ error: 'invalid_grant' }),
        });
    }
  }
  expect(busy).toEqual({
    body: { error: 'temporarily_unavailable', error_description: expect.stringMatching(/password checks/) },
    retryAfter: '1',
  });
  expect([...seen.keys()].sort()).toEqual([401, 503]);
  expect((await fetch(`${auth.issuer}/readyz`)).status).toBe(200);
});
