import type { components } from '../support/api-types/content';
import { bearer, INTERNAL_SECRET, startEdge, type Edge } from './helpers';

type Schemas = components['schemas'];

/**
 * Posts through real tokens: accounts registered and logged in through the REST interface (content
 * → auth), requests sent with `Authorization: Bearer <token>` to the gateway, which verifies the
 * JWT and forwards the caller to content. No identity header is forged here.
 */
let edge: Edge;
interface Account {
  id: string;
  token: string;
}
let alice: Account;
let bob: Account;
let admin: Account;

async function registerAndLogin(name: string, promote?: 'ADMIN'): Promise<Account> {
  const email = `${name.toLowerCase().replace(/\W/g, '')}.${Date.now()}@example.org`;
  const password = 'long enough pw';
  const registered = await bearer(edge.gateway, 'POST', '/api/v1/auth/register', null, { name, email, password });
  expect(registered.status).toBe(201);
  const id = (registered.json as Schemas['Registered']).user.id;
  if (promote) {
    // Roles are account data held by auth (its internal endpoint, as content's admin paths use).
    const res = await fetch(`${edge.auth.url}/internal/accounts/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
      body: JSON.stringify({ roles: [promote] }),
    });
    expect(res.status).toBe(200);
  }
  const login = await bearer(edge.gateway, 'POST', '/api/v1/auth/login', null, { email, password });
  expect(login.status).toBe(200);
  return { id, token: login.json.token as string };
}

beforeAll(async () => {
  edge = await startEdge();
  alice = await registerAndLogin('Alice Token');
  bob = await registerAndLogin('Bob Token');
  admin = await registerAndLogin('Ada Token', 'ADMIN');
}, 180_000);

afterAll(async () => {
  await edge?.stop();
});

describe('posts through the gateway with login tokens', () => {
  it('creates, reads, replaces, patches and deletes a post as its author', async () => {
    const created = await bearer(edge.gateway, 'POST', '/api/v1/posts', alice.token, {
      title: 'Token Post',
      content: 'Body',
      published: true,
      tags: ['tokens'],
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      title: 'Token Post',
      published: true,
      author: { id: alice.id, name: 'Alice Token' },
      author_name: 'Alice Token',
    });
    const id = created.json.id as number;

    const read = await bearer(edge.gateway, 'GET', `/api/v1/posts/${id}`, bob.token);
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ id, title: 'Token Post', author_name: 'Alice Token' });
    const listed = await bearer(edge.gateway, 'GET', '/api/v1/posts?tag=tokens', bob.token);
    expect(listed.status).toBe(200);
    expect((listed.json as Schemas['PostPage']).data.map((p) => p.id)).toEqual([id]);

    const replaced = await bearer(edge.gateway, 'PUT', `/api/v1/posts/${id}`, alice.token, {
      title: 'Token Post Replaced',
      content: 'New body',
    });
    expect(replaced.status).toBe(200);
    // PUT replaces: left-out `published` and `tags` go back to their defaults.
    expect(replaced.json).toMatchObject({
      id,
      title: 'Token Post Replaced',
      content: 'New body',
      published: false,
      tags: [],
    });
    const patched = await bearer(edge.gateway, 'PATCH', `/api/v1/posts/${id}`, alice.token, { published: true });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id, title: 'Token Post Replaced', content: 'New body', published: true });

    const deleted = await bearer(edge.gateway, 'DELETE', `/api/v1/posts/${id}`, alice.token);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await bearer(edge.gateway, 'GET', `/api/v1/posts/${id}`, alice.token);
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ error: expect.any(String) });
  });

  it("another user's token gets 403 on PUT, PATCH and DELETE and changes nothing; an admin's token may delete", async () => {
    const created = await bearer(edge.gateway, 'POST', '/api/v1/posts', alice.token, {
      title: 'Not Bob’s',
      content: 'Body',
      published: true,
    });
    expect(created.status).toBe(201);
    const id = created.json.id as number;
    for (const [method, body] of [
      ['PUT', { title: 'Hijacked', content: 'x' }],
      ['PATCH', { title: 'Hijacked' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await bearer(edge.gateway, method, `/api/v1/posts/${id}`, bob.token, body);
      expect([method, res.status]).toEqual([method, 403]);
      expect(res.json).toEqual({ error: expect.any(String) });
    }
    const unchanged = await bearer(edge.gateway, 'GET', `/api/v1/posts/${id}`, bob.token);
    expect(unchanged.json).toMatchObject({ id, title: 'Not Bob’s', content: 'Body' });

    const byAdmin = await bearer(edge.gateway, 'DELETE', `/api/v1/posts/${id}`, admin.token);
    expect(byAdmin.status).toBe(204);
    expect((await bearer(edge.gateway, 'GET', `/api/v1/posts/${id}`, alice.token)).status).toBe(404);
  });

  it('no token or a tampered one is 401; nothing is written', async () => {
    // Deletes are real (in the transaction of their event), so the count moves only with requests.
    const live = () => edge.content.mongo.collection('posts').countDocuments();
    const before = await live();
    const anonymous = await bearer(edge.gateway, 'POST', '/api/v1/posts', null, { title: 'Anon', content: 'x' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toEqual({ error: { code: 401, message: expect.any(String) } });
    const [header, payload, signature] = alice.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: bob.id })).toString('base64url')}.${signature}`;
    const tampered = await bearer(edge.gateway, 'POST', '/api/v1/posts', forged, { title: 'Forged', content: 'x' });
    expect(tampered.status).toBe(401);
    expect(await live()).toBe(before);
    expect(await edge.content.mongo.collection('posts').countDocuments({ title: { $in: ['Anon', 'Forged'] } })).toBe(0);
  });
});
