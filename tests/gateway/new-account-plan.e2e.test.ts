import { loadAuthConfig } from '../../apps/auth/src/config';
import { INTERNAL_SECRET, registerAccount, startPlatform, type Platform } from './platform';

/**
 * Accounts that sign themselves up get auth's NEW_ACCOUNT_PLAN (README "Plans"): `free` unless set;
 * `npm start` sets `pro`, so the tour's copy-pasted blocks, the playground and GraphiQL stay within
 * the limits. The gateway then limits such an account by that plan.
 */
jest.setTimeout(120_000);

let platform: Platform;

beforeAll(async () => {
  platform = await startPlatform({ authEnv: { NEW_ACCOUNT_PLAN: 'pro' } });
});

afterAll(async () => {
  await platform?.stop();
});

it('is free by default and only a plan of PLAN_NAMES', () => {
  const base = {
    MONGO_URL: 'mongodb://127.0.0.1:27017',
    REDIS_URL: 'redis://127.0.0.1:6379',
    INTERNAL_SECRET,
  };
  expect(loadAuthConfig(base).NEW_ACCOUNT_PLAN).toBe('free');
  expect(loadAuthConfig({ ...base, NEW_ACCOUNT_PLAN: 'pro' }).NEW_ACCOUNT_PLAN).toBe('pro');
  expect(() => loadAuthConfig({ ...base, NEW_ACCOUNT_PLAN: 'platinum' })).toThrow(/NEW_ACCOUNT_PLAN/);
});

it('an account registered through the content API gets the plan, and the gateway limits it by that plan', async () => {
  const account = await registerAccount(platform.publicUrl, 'Tour Taker');
  const stored = await fetch(`${platform.auth.url}/internal/accounts/${account.id}`, {
    headers: { 'x-internal-secret': INTERNAL_SECRET },
  });
  expect(((await stored.json()) as { plan: string }).plan).toBe('pro');
  // Eight requests at once: within pro's 20 per second and 10 in flight (free allows 3 and 2).
  const answers = await Promise.all(
    Array.from({ length: 8 }, () =>
      fetch(`${platform.publicUrl}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ me { id } }' }),
      }),
    ),
  );
  expect(answers.map((res) => res.status)).toEqual(Array(8).fill(200));
  for (const res of answers) expect(res.headers.get('x-ratelimit-limit')).toBe('20');
});
