import { randomUUID } from 'node:crypto';
import { contentOpenApi } from '@platform/api-docs';
import { api, bearer, INTERNAL_SECRET, startEdge, type Edge } from '../content/helpers';
import type { components } from '../support/api-types/content';
import { watchResponses, type ResponseWatch } from './watch-responses';

type Schemas = components['schemas'];

/**
 * The content API's OpenAPI document (`/openapi/content.json`) against the running platform (auth,
 * content and the gateway as processes): every operation is called through the gateway, on its success
 * path and on its error paths, and every response is validated against the document (status, media type,
 * body schema). The last test checks that no operation of the document was left uncalled.
 */
jest.setTimeout(120_000);

let edge: Edge;
let watch: ResponseWatch;
interface Account {
  id: string;
  email: string;
  password: string;
  token: string;
  refreshToken: string;
}
let alice: Account;
let bob: Account;
const password = 'contract test password';

async function registerAndLogin(name: string): Promise<Account> {
  const email = `${randomUUID()}@example.org`;
  const registered = await bearer(edge.gateway, 'POST', '/api/v1/auth/register', null, { name, email, password });
  expect(registered.status).toBe(201);
  const login = await bearer(edge.gateway, 'POST', '/api/v1/auth/login', null, { email, password });
  expect(login.status).toBe(200);
  const tokens = login.json as Schemas['Tokens'];
  return {
    id: (registered.json as Schemas['Registered']).user.id,
    email,
    password,
    token: tokens.token,
    refreshToken: tokens.refresh_token,
  };
}

beforeAll(async () => {
  edge = await startEdge();
  watch = watchResponses(edge.gateway.url, contentOpenApi());
  alice = await registerAndLogin('Alice Contract');
  bob = await registerAndLogin('Bob Contract');
}, 180_000);

afterAll(async () => {
  watch?.stop();
  await edge?.stop();
});

afterEach(() => {
  // Each test answers for the responses it got.
  const problems = watch.problems.splice(0);
  expect(problems).toEqual([]);
});

describe('sign-in', () => {
  it('register: 201, an invalid body 400 naming the properties, a used email 400', async () => {
    const email = `${randomUUID()}@example.org`;
    expect(
      (await bearer(edge.gateway, 'POST', '/api/v1/auth/register', null, { name: 'Carol', email, password })).status,
    ).toBe(201);
    const invalid = await bearer(edge.gateway, 'POST', '/api/v1/auth/register', null, {
      name: '',
      email: 'not-an-email',
      password: 'short',
      extra: 1,
    });
    expect(invalid.status).toBe(400);
    expect(Object.keys((invalid.json as Schemas['ValidationError']).errors).sort()).toEqual([
      'email',
      'extra',
      'name',
      'password',
    ]);
    const used = await bearer(edge.gateway, 'POST', '/api/v1/auth/register', null, { name: 'Carol', email, password });
    expect(used.status).toBe(400);
    const malformed = await api(edge.gateway, 'POST', '/api/v1/auth/register', { rawBody: '{"name":' });
    expect(malformed.status).toBe(400);
  });

  it('login: 200 with tokens, wrong password 401, a body that is not an object 400', async () => {
    const ok = await bearer(edge.gateway, 'POST', '/api/v1/auth/login', null, { email: alice.email, password });
    expect(ok.status).toBe(200);
    expect(ok.json.user).toMatchObject({ id: alice.id, email: alice.email });
    expect(
      (await bearer(edge.gateway, 'POST', '/api/v1/auth/login', null, { email: bob.email, password: 'wrong password' }))
        .status,
    ).toBe(401);
    expect((await bearer(edge.gateway, 'POST', '/api/v1/auth/login', null, ['not', 'an', 'object'])).status).toBe(400);
  });

  it('refresh: 200 with a rotated refresh token, the old one 401', async () => {
    const account = await registerAndLogin('Refresher');
    const refreshed = await bearer(edge.gateway, 'POST', '/api/v1/auth/refresh', null, {
      refresh_token: account.refreshToken,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.refresh_token).not.toBe(account.refreshToken);
    expect(
      (await bearer(edge.gateway, 'POST', '/api/v1/auth/refresh', null, { refresh_token: 'no-such-token' })).status,
    ).toBe(401);
    expect((await bearer(edge.gateway, 'POST', '/api/v1/auth/refresh', null, {})).status).toBe(400);
  });
});

describe('users', () => {
  it('lists profiles with paging; no token 401, an invalid token 401, a bad limit 400', async () => {
    const page = await bearer(edge.gateway, 'GET', '/api/v1/users?page=1&limit=2', alice.token);
    expect(page.status).toBe(200);
    expect(page.json.meta).toMatchObject({ page: 1, limit: 2 });
    expect((await bearer(edge.gateway, 'GET', '/api/v1/users', null)).status).toBe(401);
    expect((await bearer(edge.gateway, 'GET', '/api/v1/users', 'not.a.token')).status).toBe(401);
    expect((await bearer(edge.gateway, 'GET', '/api/v1/users?limit=1000', alice.token)).status).toBe(400);
  });

  it('reads the caller, one profile, and an unknown one 404', async () => {
    const me = await bearer(edge.gateway, 'GET', '/api/v1/users/me', alice.token);
    expect(me.status).toBe(200);
    expect(me.json.email).toBe(alice.email);
    const other = await bearer(edge.gateway, 'GET', `/api/v1/users/${alice.id}`, bob.token);
    expect(other.status).toBe(200);
    expect(other.json).not.toHaveProperty('email');
    expect((await bearer(edge.gateway, 'GET', '/api/v1/users/no-such-user', bob.token)).status).toBe(404);
  });

  it('replaces the own profile (both paths); another user’s is 403; an invalid body 400', async () => {
    const own = await bearer(edge.gateway, 'PUT', '/api/v1/users', alice.token, {
      name: 'Alice C.',
      avatar: 'https://example.org/a.png',
    });
    expect(own.status).toBe(200);
    expect(own.json).toMatchObject({ name: 'Alice C.', avatar: 'https://example.org/a.png' });
    const byId = await bearer(edge.gateway, 'PUT', `/api/v1/users/${alice.id}`, alice.token, {
      name: 'Alice Contract',
    });
    expect(byId.status).toBe(200);
    expect(
      (await bearer(edge.gateway, 'PUT', `/api/v1/users/${alice.id}`, bob.token, { name: 'Mallory' })).status,
    ).toBe(403);
    expect(
      (await bearer(edge.gateway, 'PUT', '/api/v1/users', alice.token, { name: 'x', status: 'NOPE' })).status,
    ).toBe(400);
    expect((await bearer(edge.gateway, 'PUT', '/api/v1/users/no-such-user', alice.token, { name: 'x' })).status).toBe(
      404,
    );
  });
});

describe('posts', () => {
  it('create, read, list, replace, patch, delete; each refusal in its documented shape', async () => {
    const created = await bearer(edge.gateway, 'POST', '/api/v1/posts', alice.token, {
      title: 'Contract post',
      content: 'Body',
      published: true,
      category: 'News',
      tags: ['contract', { name: 'Open API' }],
    });
    expect(created.status).toBe(201);
    const { id } = created.json as Schemas['Post'];
    expect(created.json).toMatchObject({ slug: 'contract-post', category: { slug: 'news', name: 'News' } });

    const read = await bearer(edge.gateway, 'GET', `/api/v1/posts/${id}`, bob.token);
    expect(read.status).toBe(200);
    expect(read.json.viewCount).toBe(1);
    const listed = await bearer(edge.gateway, 'GET', '/api/v1/posts?tag=contract&limit=5', bob.token);
    expect(listed.status).toBe(200);
    expect((listed.json as Schemas['PostPage']).data.map((post) => post.id)).toEqual([id]);
    expect((await bearer(edge.gateway, 'GET', '/api/v1/posts?sort=title', bob.token)).status).toBe(400);

    const replaced = await bearer(edge.gateway, 'PUT', `/api/v1/posts/${id}`, alice.token, {
      title: 'Contract post, again',
      content: 'New body',
    });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ published: false, category: null, tags: [] });
    const patched = await bearer(edge.gateway, 'PATCH', `/api/v1/posts/${id}`, alice.token, { published: true });
    expect(patched.status).toBe(200);
    expect(patched.json.status).toBe('PUBLISHED');

    expect((await bearer(edge.gateway, 'PATCH', `/api/v1/posts/${id}`, bob.token, { title: 'Not mine' })).status).toBe(
      403,
    );
    expect((await bearer(edge.gateway, 'PUT', `/api/v1/posts/${id}`, alice.token, { title: '' })).status).toBe(400);
    expect(
      (
        await bearer(edge.gateway, 'POST', '/api/v1/posts', alice.token, {
          title: 'x',
          content: 'y',
          tags: 'not-a-list',
        })
      ).status,
    ).toBe(400);
    expect(
      (await bearer(edge.gateway, 'POST', '/api/v1/posts', alice.token, { title: 'Big', content: 'x'.repeat(600_000) }))
        .status,
    ).toBe(413);
    expect((await bearer(edge.gateway, 'DELETE', `/api/v1/posts/${id}`, bob.token)).status).toBe(403);

    const deleted = await fetch(`${edge.gateway.url}/api/v1/posts/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alice.token}` },
    });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect((await bearer(edge.gateway, 'GET', `/api/v1/posts/${id}`, alice.token)).status).toBe(404);
    expect((await bearer(edge.gateway, 'DELETE', `/api/v1/posts/${id}`, alice.token)).status).toBe(404);
    expect(
      (await bearer(edge.gateway, 'PUT', '/api/v1/posts/not-a-number', alice.token, { title: 't', content: 'c' }))
        .status,
    ).toBe(404);
  });

  it('a credential without the content scopes is refused with 403', async () => {
    // An API key carries only speech scopes: the gateway lets it through, content refuses it.
    const created = await fetch(`${edge.auth.url}/internal/accounts/${bob.id}/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
      body: JSON.stringify({ name: 'contract' }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    const refused = await api(edge.gateway, 'POST', '/api/v1/posts', {
      headers: { 'xi-api-key': key },
      body: { title: 'x', content: 'y' },
    });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ error: expect.stringContaining('content:write') });
  });
});

describe('GraphQL', () => {
  it('POST and GET run queries; a document that does not parse is refused', async () => {
    const post = await bearer(edge.gateway, 'POST', '/graphql', alice.token, { query: '{ __typename }' });
    expect(post.status).toBe(200);
    expect(post.json).toEqual({ data: { __typename: 'Query' } });
    // Apollo Server's CSRF prevention wants a header a browser form cannot send on a GET.
    const get = await api(edge.gateway, 'GET', `/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${alice.token}`,
        'apollo-require-preflight': 'true',
      },
    });
    expect(get.status).toBe(200);
    expect(get.json).toEqual({ data: { __typename: 'Query' } });
    const broken = await bearer(edge.gateway, 'POST', '/graphql', alice.token, { query: '{ posts(' });
    expect(broken.status).toBeGreaterThanOrEqual(200);
    expect(broken.json.errors).toEqual([expect.objectContaining({ message: expect.any(String) })]);
  });
});

describe('the document', () => {
  it('had every operation called', () => {
    expect(watch.operations.filter((operation) => !watch.seen.has(operation))).toEqual([]);
  });
});
