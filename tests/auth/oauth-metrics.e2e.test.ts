import { freePort, scrapeMetrics, sumOf, type MetricSample } from '@platform/testing';
import { cli, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

/**
 * auth's own Prometheus counters on its METRICS_PORT listener (docs/operations.md, "Metrics"), moved by
 * real requests to the token, introspection, revocation and device authorization endpoints (the first
 * two through the HTTP server's fast lane, the others through express).
 */
let auth: RunningAuth;
let metricsUrl: string;
let robot: CreatedClient;

function form(
  client: CreatedClient | null,
  params: Record<string, string>,
  secret = client?.client_secret ?? '',
): RequestInit {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(client ? { authorization: `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString('base64')}` } : {}),
    },
    body: new URLSearchParams(params).toString(),
  };
}

async function post(path: string, init: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${auth.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** How much each counter of `read` moved while `act` ran. */
async function moved(read: (samples: MetricSample[]) => number[], act: () => Promise<void>): Promise<number[]> {
  const before = read(await scrapeMetrics(metricsUrl));
  await act();
  const after = read(await scrapeMetrics(metricsUrl));
  return after.map((value, i) => value - before[i]!);
}

beforeAll(async () => {
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}`;
  auth = await startAuth({ METRICS_PORT: String(port) });
  robot = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'metrics robot',
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    '--scope',
    'speech:read',
  ]);
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

it('a client_credentials grant counts one token issued under its grant_type; a wrong secret one invalid_client error at the token endpoint', async () => {
  const read = (s: MetricSample[]) => [
    sumOf(s, 'auth_tokens_issued_total', { grant_type: 'client_credentials' }),
    sumOf(s, 'auth_token_errors_total', { endpoint: 'token', error: 'invalid_client' }),
  ];
  expect(
    await moved(read, async () => {
      expect((await post('/token', form(robot, { grant_type: 'client_credentials' }))).status).toBe(200);
    }),
  ).toEqual([1, 0]);
  expect(
    await moved(read, async () => {
      const refused = await post('/token', form(robot, { grant_type: 'client_credentials' }, 'not-the-secret'));
      expect([refused.status, refused.body.error]).toEqual([401, 'invalid_client']);
    }),
  ).toEqual([0, 1]);
});

it('errors are counted by the code the client was answered with, under their endpoint', async () => {
  const read = (s: MetricSample[]) => [
    sumOf(s, 'auth_token_errors_total', { endpoint: 'token', error: 'unsupported_grant_type' }),
    sumOf(s, 'auth_token_errors_total', { endpoint: 'introspection', error: 'invalid_client' }),
    sumOf(s, 'auth_token_errors_total', { endpoint: 'revocation', error: 'unsupported_token_type' }),
    sumOf(s, 'auth_token_errors_total', { endpoint: 'device_authorization', error: 'unauthorized_client' }),
  ];
  expect(
    await moved(read, async () => {
      expect((await post('/token', form(robot, { grant_type: 'password' }))).body.error).toBe('unsupported_grant_type');
      expect((await post('/introspect', form(robot, { token: 'x' }, 'not-the-secret'))).body.error).toBe(
        'invalid_client',
      );
      expect((await post('/revoke', form(robot, { token: 'x', token_type_hint: 'id_token' }))).body.error).toBe(
        'unsupported_token_type',
      );
      expect((await post('/device_authorization', form(robot, {}))).body.error).toBe('unauthorized_client');
    }),
  ).toEqual([1, 1, 1, 1]);
});

it("introspections are counted by the answer's active, revocations once per 200", async () => {
  const token = (await post('/token', form(robot, { grant_type: 'client_credentials' }))).body.access_token as string;
  const read = (s: MetricSample[]) => [
    sumOf(s, 'auth_introspections_total', { active: 'true' }),
    sumOf(s, 'auth_introspections_total', { active: 'false' }),
    sumOf(s, 'auth_revocations_total'),
  ];
  expect(
    await moved(read, async () => {
      expect((await post('/introspect', form(robot, { token }))).body.active).toBe(true);
      expect((await post('/revoke', form(robot, { token }))).status).toBe(200);
      expect((await post('/introspect', form(robot, { token }))).body.active).toBe(false);
    }),
  ).toEqual([1, 1, 1]);
});
