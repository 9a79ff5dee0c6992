import fc from 'fast-check';
import { ALL_GRANTS, cli, createUser, FormAgent, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

/**
 * Property-based fuzzing of the OAuth endpoints against the built auth app: random and mutated form
 * bodies for /token, /revoke, /introspect and /device_authorization (known parameter names with wrong,
 * huge, repeated or binary values, broken percent-encoding, other content types, garbage client
 * authentication and DPoP headers), /authorize query strings and the sign-in form. Whatever comes in:
 * no 5xx, JSON errors in RFC 6749 §5.2 shape, pages with their security headers, and auth still ready
 * afterwards. Fixed seed and run counts (200 cases in all), so CI replays the same cases every time.
 */
const SEED = 20_261_124;
const RUNS = { token: 50, revoke: 25, introspect: 25, device: 25, authorize: 40, login: 35 };
const REDIRECT = 'https://app.example/cb';

jest.setTimeout(120_000);

let auth: RunningAuth;
let conf: CreatedClient;
let pub: CreatedClient;
let user: { id: string; email: string; password: string };
let validToken = '';

beforeAll(async () => {
  auth = await startAuth();
  const common = [
    '--scope',
    'content:read speech:read offline_access',
    '--resource',
    auth.issuer,
    '--redirect-uri',
    REDIRECT,
  ];
  conf = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'fuzz-conf',
    '--type',
    'confidential',
    ...ALL_GRANTS.flatMap((g) => ['--grant', g]),
    ...common,
  ]);
  pub = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'fuzz-pub',
    '--type',
    'public',
    '--grant',
    'authorization_code',
    '--grant',
    'urn:ietf:params:oauth:grant-type:device_code',
    '--grant',
    'refresh_token',
    ...common,
  ]);
  user = await createUser(auth);
  const issued = await post('/token', 'grant_type=client_credentials', {
    authorization: basic(conf.client_id, conf.client_secret!),
    'content-type': 'application/x-www-form-urlencoded',
  });
  validToken = (issued.body as { access_token: string }).access_token;
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

async function post(
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
  const res = await fetch(`${auth.issuer}${path}`, { method: 'POST', headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = Symbol.for('not json');
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** RFC 6749 §5.2: `error` (and `error_description`) of %x20-21 / %x23-5B / %x5D-7E only. */
const ERROR_CHARS = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/;
function oauthErrorProblem(status: number, headers: Headers, body: unknown): string | null {
  if (status < 400 || status >= 500) return `unexpected status ${status}`;
  if (!/^application\/json/.test(headers.get('content-type') ?? ''))
    return `error content-type ${headers.get('content-type')}`;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'error body is not a JSON object';
  const { error, error_description: description } = body as Record<string, unknown>;
  if (typeof error !== 'string' || !ERROR_CHARS.test(error)) return `bad error ${JSON.stringify(error)}`;
  if (description !== undefined && (typeof description !== 'string' || !ERROR_CHARS.test(description)))
    return `bad error_description ${JSON.stringify(description)}`;
  return null;
}

// ---- generators ------------------------------------------------------------------------------------

const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    'null',
    '[]',
    '{}',
    '$gt',
    '../../etc',
    '<script>',
    '\u0000',
    '%00',
    '😀',
    'S256',
    'plain',
    'https://evil.example/',
  ),
  fc.nat({ max: 400 }).map((n) => 'x'.repeat(n * 25)),
);

const GRANT_TYPES = [...ALL_GRANTS, 'password', 'implicit', ''];
const PARAM_NAMES = [
  'grant_type',
  'client_id',
  'client_secret',
  'client_assertion',
  'client_assertion_type',
  'scope',
  'resource',
  'audience',
  'code',
  'code_verifier',
  'redirect_uri',
  'refresh_token',
  'device_code',
  'assertion',
  'subject_token',
  'subject_token_type',
  'actor_token',
  'actor_token_type',
  'requested_token_type',
  'token',
  'token_type_hint',
  'response_type',
  'state',
  'code_challenge',
  'code_challenge_method',
  'dpop_jkt',
  'nonce',
  '__proto__',
  'constructor',
];

/** Values that reach deeper code paths: the real client ids, grant types, a live token. */
function knownValue(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...GRANT_TYPES),
    fc.constant(conf.client_id),
    fc.constant(pub.client_id),
    fc.constant(REDIRECT),
    fc.constant(auth.issuer),
    fc.constant(validToken),
    fc.constant('urn:ietf:params:oauth:token-type:access_token'),
    fc.constant('urn:ietf:params:oauth:client-assertion-type:jwt-bearer'),
    fc.constant('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'),
  );
}

const pairs = () =>
  fc.array(
    fc.tuple(fc.oneof(fc.constantFrom(...PARAM_NAMES), fc.string({ maxLength: 12 })), fc.oneof(knownValue(), anyText)),
    { maxLength: 10 },
  );

/** A form body: well-encoded pairs (names repeated at will), or raw text a form parser has to cope with. */
const formBody = () =>
  fc.oneof(
    { weight: 4, arbitrary: pairs().map((list) => new URLSearchParams(list).toString()) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%',
        '%zz',
        '%E0%A4%A',
        'a=%FF%FE',
        '&&&==&',
        '=x',
        'a',
        'token',
        'grant_type=client_credentials&grant_type=client_credentials',
        '\u0000=\u0000',
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  );

const headersArb = () =>
  fc.record({
    'content-type': fc.constantFrom(
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=utf-8',
      'application/x-www-form-urlencoded; charset=latin1',
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
    ),
    authorization: fc.oneof(
      fc.constant(undefined),
      fc.constant(basic(conf.client_id, conf.client_secret!)),
      fc.constant(basic(conf.client_id, 'wrong')),
      fc.constant(basic(pub.client_id, '')),
      fc.constantFrom('Basic', 'Basic ', 'Basic !!!', 'Basic Og==', 'Bearer x', 'DPoP x'),
      fc.string({ maxLength: 60 }).map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
    ),
    dpop: fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.constantFrom('x', 'a.b.c', 'eyJ0eXAiOiJkcG9wK2p3dCJ9.e30.'),
          fc.string({ maxLength: 80 }),
        ),
      },
    ),
  });

function definedHeaders(h: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== undefined));
}

// ---- the JSON endpoints ----------------------------------------------------------------------------

describe.each([
  ['/token', RUNS.token],
  ['/revoke', RUNS.revoke],
  ['/introspect', RUNS.introspect],
  ['/device_authorization', RUNS.device],
] as const)('%s', (path, numRuns) => {
  it('answers any form with a 2xx or an RFC 6749 error, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(formBody(), headersArb(), async (body, headers) => {
        const res = await post(path, body, definedHeaders(headers));
        if (res.status >= 200 && res.status < 300) {
          // /revoke's success is an empty 200 (RFC 7009 §2.2); every other success is a JSON object.
          if (path === '/revoke' && res.text === '') return;
          expect(typeof res.body === 'object' && res.body !== null).toBe(true);
          return;
        }
        const problem = oauthErrorProblem(res.status, res.headers, res.body);
        if (problem) throw new Error(`${path} ${res.status}: ${problem}\n${res.text.slice(0, 300)}`);
      }),
      { seed: SEED, numRuns },
    );
  });
});

// ---- /authorize and the sign-in form ---------------------------------------------------------------

const AUTHORIZE_NAMES = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
  'dpop_jkt',
  'request',
];

function expectPageHeaders(headers: Headers): void {
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
}

describe('/authorize', () => {
  it('answers any query with a redirect or an HTML error page, never a 5xx', async () => {
    const base = () => ({ response_type: 'code', client_id: conf.client_id, redirect_uri: REDIRECT });
    const query = fc.tuple(
      fc.boolean(),
      fc.array(
        fc.tuple(
          fc.oneof(fc.constantFrom(...AUTHORIZE_NAMES), fc.string({ maxLength: 8 })),
          fc.oneof(knownValue(), anyText),
        ),
        { maxLength: 8 },
      ),
    );
    await fc.assert(
      fc.asyncProperty(query, async ([fromValid, extra]) => {
        const params = new URLSearchParams(fromValid ? base() : {});
        for (const [k, v] of extra) params.append(k, v.slice(0, 1500));
        const res = await fetch(`${auth.issuer}/authorize?${params.toString()}`, { redirect: 'manual' });
        expect(res.status).toBeLessThan(500);
        if (res.status === 303) {
          const location = res.headers.get('location') ?? '';
          // Either on to the sign-in/consent steps, or back to the registered redirect_uri with an error.
          if (!location.startsWith('/authorize/continue?')) {
            const url = new URL(location);
            expect(url.href.startsWith(REDIRECT)).toBe(true);
            expect(url.searchParams.get('error')).toMatch(ERROR_CHARS);
            expect(url.searchParams.get('iss')).toBe(auth.issuer);
          }
        } else {
          expect(res.status).toBe(400);
          expect(res.headers.get('content-type')).toMatch(/^text\/html/);
          expectPageHeaders(res.headers);
        }
        await res.arrayBuffer();
      }),
      { seed: SEED, numRuns: RUNS.authorize },
    );
  });
});

describe('sign-in form', () => {
  it('answers any form with a page or a same-server redirect, never a 5xx', async () => {
    const agent = new FormAgent(auth.issuer);
    const page = await agent.follow('/login');
    const csrf = FormAgent.field(page.html, 'csrf');
    const form = fc.record({
      withCsrf: fc.boolean(),
      email: fc.oneof(fc.constant(user.email), fc.constant(user.email.toUpperCase()), anyText),
      password: fc.oneof(fc.constant('wrong password'), anyText),
      returnTo: fc.oneof(
        fc.constantFrom(
          '/device',
          '//evil.example',
          '/\\evil',
          'https://evil.example/',
          '/authorize/continue?request=x',
        ),
        anyText,
      ),
      extra: pairs(),
    });
    await fc.assert(
      fc.asyncProperty(form, async ({ withCsrf, email, password, returnTo, extra }) => {
        const params = new URLSearchParams(extra);
        if (withCsrf) params.set('csrf', csrf);
        params.append('email', email);
        params.append('password', password);
        params.append('return_to', returnTo);
        const res = await agent.request('/login', { form: Object.fromEntries(params) });
        expect([303, 400, 401, 403, 413, 415, 429]).toContain(res.status);
        if (res.status === 303) expect(res.headers.get('location')).toMatch(/^\/(?![/\\])/);
        else if (res.headers.get('content-type')?.startsWith('text/html')) expectPageHeaders(res.headers);
        await res.arrayBuffer();
      }),
      { seed: SEED, numRuns: RUNS.login },
    );
  });
});

describe('afterwards', () => {
  it('auth is still ready and serves a normal token request', async () => {
    const ready = await fetch(`${auth.issuer}/readyz`);
    expect(ready.status).toBe(200);
    const issued = await post('/token', 'grant_type=client_credentials', {
      authorization: basic(conf.client_id, conf.client_secret!),
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(issued.status).toBe(200);
  });
});
