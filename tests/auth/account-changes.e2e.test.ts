import { toGlobalId } from '@platform/graphql-schema';
import { bearer, INTERNAL_SECRET, startEdge, type Edge } from '../content/helpers';
import { wsClient } from '../gateway/subscriptions-client';

/**
 * A change of an account's role or status takes effect on the very next request: auth, content and
 * the gateway as processes, accounts registered and logged in through the REST interface, requests
 * with the tokens a user really holds. The admin who is demoted or suspended keeps nothing: the
 * access token is refused by the gateway, an open graphql-ws connection is closed, and the refresh
 * token no longer refreshes.
 */
jest.setTimeout(90_000);

let edge: Edge;
interface Account {
  id: string;
  name: string;
  email: string;
  password: string;
  token: string;
  refresh: string;
}
let alice: Account;
let root: Account | undefined;

async function register(name: string, promote?: 'ADMIN'): Promise<Account> {
  const email = `${name.toLowerCase().replace(/\W/g, '')}.${Date.now()}@example.org`;
  const password = 'long enough pw';
  const registered = await bearer(edge.gateway, 'POST', '/api/v1/auth/register', null, { name, email, password });
  expect(registered.status).toBe(201);
  const id = (registered.json.user as { id: string }).id;
  if (promote && root) {
    // As an admin does it: content's profile and auth's account both learn the role.
    const promoted = await bearer(edge.gateway, 'PUT', `/api/v1/users/${id}`, root.token, {
      name,
      roles: [`ROLE_${promote}`],
    });
    expect(promoted.status).toBe(200);
  } else if (promote) {
    // The first admin: straight in auth (its internal endpoint, as the operators' tooling does).
    const res = await fetch(`${edge.auth.url}/internal/accounts/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
      body: JSON.stringify({ roles: [promote] }),
    });
    expect(res.status).toBe(200);
  }
  return { id, name, email, password, ...(await login(email, password)) };
}

async function login(email: string, password: string): Promise<{ token: string; refresh: string }> {
  const res = await bearer(edge.gateway, 'POST', '/api/v1/auth/login', null, { email, password });
  expect(res.status).toBe(200);
  return { token: res.json.token as string, refresh: res.json.refresh_token as string };
}

async function alicePost(): Promise<number> {
  const created = await bearer(edge.gateway, 'POST', '/api/v1/posts', alice.token, {
    title: 'Alice writes',
    content: 'Body',
    published: true,
  });
  expect(created.status).toBe(201);
  return created.json.id as number;
}

/** An open graphql-ws connection of `token`, once the gateway accepted it; resolves its close. */
async function openSubscription(
  token: string,
): Promise<{ closed: Promise<{ code: number; reason: string }>; dispose: () => Promise<void> }> {
  const client = wsClient(edge.gateway.url, { authorization: `Bearer ${token}` });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    client.on('closed', (event) => resolve(event as { code: number; reason: string }));
  });
  const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
  client.subscribe(
    { query: 'subscription { onPostCreated { title } }' },
    { next: () => undefined, error: () => undefined, complete: () => undefined },
  );
  await connected;
  return { closed, dispose: () => client.dispose() as Promise<void> };
}

beforeAll(async () => {
  edge = await startEdge();
  alice = await register('Alice Writer');
  root = await register('Root Admin', 'ADMIN');
}, 180_000);

afterAll(async () => {
  await edge?.stop();
});

describe('role and status changes revoke what the account holds', () => {
  it('a demoted admin: the next request with the same token is refused, the open subscription closed, the refresh token dead', async () => {
    const mallory = await register('Mallory Admin', 'ADMIN');
    const postId = await alicePost();
    const edited = await bearer(edge.gateway, 'PATCH', `/api/v1/posts/${postId}`, mallory.token, {
      title: 'Edited by an admin',
    });
    expect(edited.status).toBe(200);
    const subscription = await openSubscription(mallory.token);

    const demoted = await bearer(edge.gateway, 'PUT', `/api/v1/users/${mallory.id}`, root!.token, {
      name: mallory.name,
      roles: ['ROLE_USER'],
    });
    expect(demoted.status).toBe(200);

    const again = await bearer(edge.gateway, 'PATCH', `/api/v1/posts/${postId}`, mallory.token, {
      title: 'Edited after demotion',
    });
    expect(again.status).toBe(401);
    expect(await subscription.closed).toMatchObject({ code: 4401 });
    const refreshed = await bearer(edge.gateway, 'POST', '/api/v1/auth/refresh', null, {
      refresh_token: mallory.refresh,
    });
    expect(refreshed.status).toBe(401);
    const unchanged = await bearer(edge.gateway, 'GET', `/api/v1/posts/${postId}`, alice.token);
    expect(unchanged.json).toMatchObject({ title: 'Edited by an admin' });

    // Signing in again gives a token with the role the account has now: no admin rights.
    const fresh = await login(mallory.email, mallory.password);
    const asUser = await bearer(edge.gateway, 'PATCH', `/api/v1/posts/${postId}`, fresh.token, {
      title: 'Edited as a user',
    });
    expect(asUser.status).toBe(403);
    await subscription.dispose();
  });

  it('an admin made outside content (in auth) and demoted through content loses the rights on the next request', async () => {
    // Promoted in auth directly, as the operators' tooling does: content's profile still says USER.
    const olga = await register('Olga Operator');
    const promoted = await fetch(`${edge.auth.url}/internal/accounts/${olga.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
      body: JSON.stringify({ roles: ['ADMIN'] }),
    });
    expect(promoted.status).toBe(200);
    const asAdmin = await login(olga.email, olga.password);
    const postId = await alicePost();
    expect(
      (await bearer(edge.gateway, 'PATCH', `/api/v1/posts/${postId}`, asAdmin.token, { title: 'Edited by Olga' }))
        .status,
    ).toBe(200);

    const demoted = await bearer(edge.gateway, 'PUT', `/api/v1/users/${olga.id}`, root!.token, {
      name: olga.name,
      roles: ['ROLE_USER'],
    });
    expect(demoted.status).toBe(200);
    expect(
      (
        await bearer(edge.gateway, 'PATCH', `/api/v1/posts/${postId}`, asAdmin.token, {
          title: 'Edited after demotion',
        })
      ).status,
    ).toBe(401);
    const again = await login(olga.email, olga.password);
    expect(
      (await bearer(edge.gateway, 'PATCH', `/api/v1/posts/${postId}`, again.token, { title: 'Edited as a user' }))
        .status,
    ).toBe(403);
  });

  it('a suspended admin: the next request with the same token is refused, the refresh token dead, no new sign-in', async () => {
    const sam = await register('Sam Admin', 'ADMIN');
    const postId = await alicePost();
    expect(
      (await bearer(edge.gateway, 'PATCH', `/api/v1/posts/${postId}`, sam.token, { title: 'Edited by Sam' })).status,
    ).toBe(200);
    // A speech API key of the account, in the gateway's lookup cache once used.
    const created = await fetch(`${edge.auth.url}/internal/accounts/${sam.id}/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
      body: JSON.stringify({ name: 'sam' }),
    });
    const { key } = (await created.json()) as { key: string };
    const withKey = () => fetch(`${edge.gateway.url}/v1/models`, { headers: { 'xi-api-key': key } });
    expect((await withKey()).status).toBe(200);

    const suspended = await bearer(edge.gateway, 'PUT', `/api/v1/users/${sam.id}`, root!.token, {
      name: sam.name,
      status: 'SUSPENDED',
    });
    expect(suspended.status).toBe(200);

    expect(
      (await bearer(edge.gateway, 'PATCH', `/api/v1/posts/${postId}`, sam.token, { title: 'Edited while suspended' }))
        .status,
    ).toBe(401);
    // The gateway does not answer from its cached lookup: the key of a suspended account is refused at once.
    expect((await withKey()).status).toBe(401);
    expect(
      (await bearer(edge.gateway, 'POST', '/api/v1/auth/refresh', null, { refresh_token: sam.refresh })).status,
    ).toBe(401);
    expect(
      (await bearer(edge.gateway, 'POST', '/api/v1/auth/login', null, { email: sam.email, password: sam.password }))
        .status,
    ).toBe(401);
    expect((await bearer(edge.gateway, 'GET', `/api/v1/posts/${postId}`, alice.token)).json).toMatchObject({
      title: 'Edited by Sam',
    });
  });

  it('a deleted user: the account goes too, so the token held is refused on the next request and no sign-in brings it back', async () => {
    const dora = await register('Dora Deleted');
    expect((await bearer(edge.gateway, 'GET', '/api/v1/users/me', dora.token)).status).toBe(200);
    const res = await fetch(`${edge.gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${root!.token}` },
      body: JSON.stringify({
        query: 'mutation($id: ID!) { deleteUser(id: $id) { success } }',
        variables: { id: toGlobalId('User', dora.id) },
      }),
    });
    expect(await res.json()).toEqual({ data: { deleteUser: { success: true } } });

    expect((await bearer(edge.gateway, 'GET', '/api/v1/users/me', dora.token)).status).toBe(401);
    expect(
      (await bearer(edge.gateway, 'POST', '/api/v1/auth/refresh', null, { refresh_token: dora.refresh })).status,
    ).toBe(401);
    expect(
      (await bearer(edge.gateway, 'POST', '/api/v1/auth/login', null, { email: dora.email, password: dora.password }))
        .status,
    ).toBe(401);
  });

  it('a password change revokes the tokens: the next request is 401, the refresh token is refused, the new password signs in', async () => {
    const paula = await register('Paula Password');
    expect((await bearer(edge.gateway, 'GET', '/api/v1/users/me', paula.token)).status).toBe(200);
    const changed = await fetch(`${edge.auth.url}/internal/accounts/${paula.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
      body: JSON.stringify({ password: 'a brand new password' }),
    });
    expect(changed.status).toBe(200);

    expect((await bearer(edge.gateway, 'GET', '/api/v1/users/me', paula.token)).status).toBe(401);
    expect(
      (await bearer(edge.gateway, 'POST', '/api/v1/auth/refresh', null, { refresh_token: paula.refresh })).status,
    ).toBe(401);
    const fresh = await login(paula.email, 'a brand new password');
    expect((await bearer(edge.gateway, 'GET', '/api/v1/users/me', fresh.token)).status).toBe(200);
  });

  it('a change that does not touch rights (the name) leaves the tokens working', async () => {
    const nina = await register('Nina Admin', 'ADMIN');
    const renamed = await bearer(edge.gateway, 'PUT', `/api/v1/users/${nina.id}`, root!.token, {
      name: 'Nina Renamed',
    });
    expect(renamed.status).toBe(200);
    expect((await bearer(edge.gateway, 'GET', '/api/v1/users/me', nina.token)).status).toBe(200);
  });
});
