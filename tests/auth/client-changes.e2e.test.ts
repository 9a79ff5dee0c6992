import { eventually } from '@platform/testing';
import { cli, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

/**
 * A change of registration reaches every auth replica at once. Two replicas share one database; the
 * change is made with the CLI (as an operator would, from a third process) after replica B has cached the
 * client. B's cache is set to live an hour (CLIENT_CACHE_SECONDS), so only the announcement on Redis
 * (`auth:client-changed`) can make B notice: a rotated secret, a removed grant and a deleted client are
 * refused by B without waiting for its cache to expire.
 */
jest.setTimeout(120_000);

const HOUR = String(3600);
let a: RunningAuth;
let b: RunningAuth;

beforeAll(async () => {
  a = await startAuth({ CLIENT_CACHE_SECONDS: HOUR });
  b = await startAuth({ CLIENT_CACHE_SECONDS: HOUR, MONGO_DB: a.db });
}, 120_000);

afterAll(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
});

function clientCredentials(replica: RunningAuth, id: string, secret: string): Promise<Response> {
  return fetch(`${replica.url}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
}

/** Waits until B answers with `status` (the announcement is asynchronous: it arrives a moment after the CLI exits). */
async function untilB(id: string, secret: string, status: number): Promise<unknown> {
  let last: Response | undefined;
  await eventually(async () => {
    last = await clientCredentials(b, id, secret);
    return last.status === status;
  }, 30_000);
  return last!.json();
}

async function newClient(name: string): Promise<Required<CreatedClient>> {
  const created = await cli<CreatedClient>(a, [
    'clients:create',
    '--name',
    name,
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    '--scope',
    'content:read',
  ]);
  // B reads the registration and caches it.
  expect((await clientCredentials(b, created.client_id, created.client_secret!)).status).toBe(200);
  return created as Required<CreatedClient>;
}

describe('client changes across replicas', () => {
  it('a rotated secret is refused by the other replica, and the new one works there', async () => {
    const client = await newClient('Rotated');
    const rotated = await cli<{ client_secret: string }>(a, ['clients:rotate-secret', '--id', client.client_id]);
    expect(await untilB(client.client_id, client.client_secret, 401)).toMatchObject({ error: 'invalid_client' });
    expect((await clientCredentials(b, client.client_id, rotated.client_secret)).status).toBe(200);
    expect((await clientCredentials(a, client.client_id, client.client_secret)).status).toBe(401);
  });

  it('a removed grant is refused by the other replica', async () => {
    const client = await newClient('Narrowed');
    await cli(a, [
      'clients:update',
      '--id',
      client.client_id,
      '--grant',
      'authorization_code',
      '--redirect-uri',
      'https://app.example/cb',
    ]);
    expect(await untilB(client.client_id, client.client_secret, 400)).toMatchObject({ error: 'unauthorized_client' });
  });

  // Deletion also marks the client gone in Redis for its tokens' sake (tokens/client-token-tracking.ts),
  // which B checks too: this case holds even without the announcement, and is kept as the third change.
  it('a deleted client is refused by the other replica', async () => {
    const client = await newClient('Deleted');
    await cli(a, ['clients:delete', '--id', client.client_id]);
    expect(await untilB(client.client_id, client.client_secret, 401)).toMatchObject({ error: 'invalid_client' });
  });
});
