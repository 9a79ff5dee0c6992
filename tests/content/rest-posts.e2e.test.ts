import type { components } from '../support/api-types/content';
import { api, seedUser, startContent, stopContent, type RunningContent, type TestUser } from './helpers';

type PostPage = components['schemas']['PostPage'];

let app: RunningContent;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;

beforeAll(async () => {
  app = await startContent();
  alice = await seedUser(app, { name: 'Alice Author' });
  bob = await seedUser(app, { name: 'Bob Other' });
  admin = await seedUser(app, { name: 'Ada Admin', role: 'ADMIN' });
}, 90_000);

afterAll(async () => {
  await stopContent(app);
});

describe('identity', () => {
  it('rejects requests without a valid identity header with 401 in the REST shape', async () => {
    const none = await api(app, 'GET', '/api/v1/posts');
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ error: { code: 401, message: expect.any(String) } });
    const forged = await api(app, 'GET', '/api/v1/posts', {
      headers: { 'x-platform-identity': 'eyJhbGciOiJub25lIn0.e30.' },
    });
    expect(forged.status).toBe(401);
  });

  it('requires an authenticated caller for everything but /auth', async () => {
    const res = await api(app, 'GET', '/api/v1/posts', { caller: 'anonymous' });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: { code: 401, message: 'Authentication required' } });
  });

  it('requires content:write to create', async () => {
    const res = await api(app, 'POST', '/api/v1/posts', {
      caller: { id: alice.id, role: 'USER', scope: 'content:read' },
      body: { title: 't', content: 'c' },
    });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ error: expect.any(String) });
  });
});

describe('posts', () => {
  it('creates a post with author = caller, a slug, derived author_name, category and tags', async () => {
    const res = await api(app, 'POST', '/api/v1/posts', {
      caller: alice,
      body: {
        title: 'Hello World!',
        content: 'First post',
        published: true,
        category: 'News',
        tags: ['TypeScript', { slug: 'node' }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      id: expect.any(Number),
      title: 'Hello World!',
      slug: 'hello-world',
      content: 'First post',
      published: true,
      status: 'PUBLISHED',
      author: { id: alice.id, name: 'Alice Author' },
      author_name: 'Alice Author',
      category: { slug: 'news', name: 'News' },
      tags: [
        { slug: 'typescript', name: 'TypeScript' },
        { slug: 'node', name: 'node' },
      ],
    });
    expect(typeof res.json.createdAt).toBe('string');
    expect(typeof res.json.publishedAt).toBe('string');
    expect(res.json).not.toHaveProperty('password');
  });

  it('gives colliding titles a suffixed slug: the post’s own id, or a new id when that slug is taken too', async () => {
    const a = await api(app, 'POST', '/api/v1/posts', { caller: alice, body: { title: 'Same Title', content: 'x' } });
    const b = await api(app, 'POST', '/api/v1/posts', { caller: bob, body: { title: 'Same Title', content: 'y' } });
    expect(a.json.slug).toBe('same-title');
    expect(b.json.slug).toBe(`same-title-${b.json.id as number}`);
    // The refused first attempt (the slug without suffix) spent no id.
    expect(b.json.id).toBe((a.json.id as number) + 1);
    // A post whose title gives the slug the next colliding post would take with its id: that post
    // takes the id after it instead.
    const next = (b.json.id as number) + 2;
    const c = await api(app, 'POST', '/api/v1/posts', {
      caller: alice,
      body: { title: `Same Title ${next}`, content: 'z' },
    });
    expect(c.json).toMatchObject({ id: next - 1, slug: `same-title-${next}` });
    const d = await api(app, 'POST', '/api/v1/posts', { caller: bob, body: { title: 'Same Title', content: 'w' } });
    expect(d.json).toMatchObject({ id: next + 1, slug: `same-title-${next + 1}` });
  });

  it('validation failures name the property', async () => {
    const res = await api(app, 'POST', '/api/v1/posts', {
      caller: alice,
      body: { content: 5, published: 'yes', title: 'x'.repeat(256) },
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      errors: {
        title: expect.stringContaining('255'),
        content: expect.any(String),
        published: expect.any(String),
      },
    });
    const missing = await api(app, 'POST', '/api/v1/posts', { caller: alice, body: {} });
    expect(missing.status).toBe(400);
    expect(Object.keys((missing.json.errors ?? {}) as object).sort()).toEqual(['content', 'title']);
  });

  it('rejects operator injection in bodies and changes nothing', async () => {
    const before = await app.mongo.collection('posts').countDocuments();
    const res = await api(app, 'POST', '/api/v1/posts', { caller: alice, body: { title: { $gt: '' }, content: 'c' } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ errors: { title: expect.any(String) } });
    const extra = await api(app, 'POST', '/api/v1/posts', {
      caller: alice,
      body: { title: 't', content: 'c', $where: '1' },
    });
    expect(extra.status).toBe(400);
    expect(extra.json).toEqual({ errors: { $where: expect.any(String) } });
    expect(await app.mongo.collection('posts').countDocuments()).toBe(before);
  });

  it('names a property or query parameter called __proto__ like any other unknown one, and changes nothing', async () => {
    const before = await app.mongo.collection('posts').countDocuments();
    const body = await api(app, 'POST', '/api/v1/posts', {
      caller: alice,
      rawBody: '{"title":"t","content":"c","__proto__":{"published":true}}',
    });
    expect(body.status).toBe(400);
    expect(Object.keys(body.json.errors as object)).toEqual(['__proto__']);
    const query = await api(app, 'GET', '/api/v1/posts?__proto__=1', { caller: alice });
    expect(query.status).toBe(400);
    expect(Object.keys(query.json.errors as object)).toEqual(['__proto__']);
    expect(await app.mongo.collection('posts').countDocuments()).toBe(before);
  });

  it('rejects malformed JSON, wrong body types and oversized bodies in the REST error shapes', async () => {
    const malformed = await api(app, 'POST', '/api/v1/posts', { caller: alice, rawBody: '{"title": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({ error: { code: 400, message: 'Malformed JSON body' } });
    const array = await api(app, 'POST', '/api/v1/posts', { caller: alice, body: [1, 2] });
    expect(array.status).toBe(400);
    expect(array.json).toEqual({ errors: { body: expect.any(String) } });
    const huge = await api(app, 'POST', '/api/v1/posts', {
      caller: alice,
      body: { title: 't', content: 'x'.repeat(600_000) },
    });
    expect(huge.status).toBe(413);
    expect(huge.json).toEqual({ error: { code: 413, message: 'Request body too large' } });
  });

  it('lists only published posts, newest first, with meta as the content API says', async () => {
    const fresh = await startContent();
    try {
      const author = await seedUser(fresh, { name: 'Lister' });
      for (let i = 1; i <= 12; i++) {
        const r = await api(fresh, 'POST', '/api/v1/posts', {
          caller: author,
          body: {
            title: `P${i}`,
            content: 'c',
            published: i % 4 !== 0,
            tags: i % 2 === 0 ? ['even'] : ['odd'],
            category: i <= 6 ? 'low' : 'high',
          },
        });
        expect(r.status).toBe(201);
      }
      const page1 = await api(fresh, 'GET', '/api/v1/posts', { caller: author });
      expect(page1.status).toBe(200);
      const meta = page1.json.meta as Record<string, number>;
      expect(meta).toEqual({ total: 9, page: 1, limit: 10, pages: 1 });
      const titles = (page1.json as PostPage).data.map((p) => p.title);
      expect(titles).toEqual(['P11', 'P10', 'P9', 'P7', 'P6', 'P5', 'P3', 'P2', 'P1']);
      const page2 = await api(fresh, 'GET', '/api/v1/posts?page=2&limit=4', { caller: author });
      expect(page2.json.meta).toEqual({ total: 9, page: 2, limit: 4, pages: 3 });
      expect((page2.json as PostPage).data.map((p) => p.title)).toEqual(['P6', 'P5', 'P3', 'P2']);
      const even = await api(fresh, 'GET', '/api/v1/posts?tag=even', { caller: author });
      expect((even.json as PostPage).data.map((p) => p.title)).toEqual(['P10', 'P6', 'P2']);
      const high = await api(fresh, 'GET', '/api/v1/posts?category=high&tag=odd', { caller: author });
      expect((high.json as PostPage).data.map((p) => p.title)).toEqual(['P11', 'P9', 'P7']);
      const beyond = await api(fresh, 'GET', '/api/v1/posts?page=50', { caller: author });
      expect(beyond.json).toEqual({ data: [], meta: { total: 9, page: 50, limit: 10, pages: 1 } });
    } finally {
      await stopContent(fresh);
    }
  }, 90_000);

  it('validates list parameters, including injection attempts in the query string', async () => {
    for (const [qs, prop] of [
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['page=abc', 'page'],
      ['page=-1', 'page'],
      ['tag[$gt]=', 'tag[$gt]'],
      ['tag=a&tag=b', 'tag'],
      ['sort=title', 'sort'],
    ] as const) {
      const res = await api(app, 'GET', `/api/v1/posts?${qs}`, { caller: alice });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ errors: { [prop]: expect.any(String) } });
    }
    const operatorLike = await api(app, 'GET', `/api/v1/posts?tag=${encodeURIComponent('{"$gt":""}')}`, {
      caller: alice,
    });
    expect(operatorLike.status).toBe(200);
    expect(operatorLike.json.data).toEqual([]);
  });

  it('hides unpublished posts except from their author and admins', async () => {
    const draft = await api(app, 'POST', '/api/v1/posts', {
      caller: alice,
      body: { title: 'Draft', content: 'secret' },
    });
    const id = draft.json.id as number;
    expect(draft.json.published).toBe(false);
    expect((await api(app, 'GET', `/api/v1/posts/${id}`, { caller: bob })).json).toEqual({ error: 'Post not found' });
    expect((await api(app, 'GET', `/api/v1/posts/${id}`, { caller: bob })).status).toBe(404);
    expect((await api(app, 'GET', `/api/v1/posts/${id}`, { caller: alice })).status).toBe(200);
    expect((await api(app, 'GET', `/api/v1/posts/${id}`, { caller: admin })).status).toBe(200);
    for (const bad of ['999999', 'abc', '1.5', '-1', '%7B%22%24gt%22%3A%22%22%7D']) {
      const res = await api(app, 'GET', `/api/v1/posts/${bad}`, { caller: alice });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ error: expect.any(String) });
    }
  });

  it('counts views on reads', async () => {
    const post = await api(app, 'POST', '/api/v1/posts', {
      caller: alice,
      body: { title: 'Viewed', content: 'c', published: true },
    });
    await api(app, 'GET', `/api/v1/posts/${post.json.id as number}`, { caller: bob });
    const second = await api(app, 'GET', `/api/v1/posts/${post.json.id as number}`, { caller: bob });
    expect(second.json.viewCount).toBe(2);
  });

  it('PUT replaces, PATCH merges, publication sets publishedAt once and keeps status consistent', async () => {
    const created = await api(app, 'POST', '/api/v1/posts', {
      caller: alice,
      body: { title: 'Edit me', content: 'v1', tags: ['a'], category: 'c1' },
    });
    const id = created.json.id as number;
    expect(created.json.publishedAt).toBeNull();
    const patched = await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: alice, body: { published: true } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({
      title: 'Edit me',
      content: 'v1',
      published: true,
      status: 'PUBLISHED',
      tags: [{ slug: 'a' }],
      category: { slug: 'c1' },
    });
    const firstPublishedAt = patched.json.publishedAt;
    expect(typeof firstPublishedAt).toBe('string');
    const replaced = await api(app, 'PUT', `/api/v1/posts/${id}`, {
      caller: alice,
      body: { title: 'Replaced', content: 'v2' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({
      title: 'Replaced',
      content: 'v2',
      published: false,
      status: 'DRAFT',
      tags: [],
      category: null,
      slug: 'edit-me',
    });
    const republished = await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: alice, body: { published: true } });
    expect(republished.json.publishedAt).toBe(firstPublishedAt);
    const putInvalid = await api(app, 'PUT', `/api/v1/posts/${id}`, { caller: alice, body: { title: 'only title' } });
    expect(putInvalid.status).toBe(400);
    expect(putInvalid.json).toEqual({ errors: { content: expect.any(String) } });
    const patchInvalid = await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: alice, body: { tags: 'nope' } });
    expect(patchInvalid.json).toEqual({ errors: { tags: expect.any(String) } });
  });

  it('only the author or an admin may update or delete: 403 otherwise', async () => {
    const created = await api(app, 'POST', '/api/v1/posts', {
      caller: alice,
      body: { title: 'Owned', content: 'c', published: true },
    });
    const id = created.json.id as number;
    for (const method of ['PUT', 'PATCH'] as const) {
      const res = await api(app, method, `/api/v1/posts/${id}`, {
        caller: bob,
        body: { title: 'Hijack', content: 'x' },
      });
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ error: expect.any(String) });
    }
    const del = await api(app, 'DELETE', `/api/v1/posts/${id}`, { caller: bob });
    expect(del.status).toBe(403);
    expect(del.json).toEqual({ error: expect.any(String) });
    const byAdmin = await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: admin, body: { title: 'Admin edit' } });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.json.author).toEqual({ id: alice.id, name: 'Alice Author' });
    const deleted = await api(app, 'DELETE', `/api/v1/posts/${id}`, { caller: alice });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api(app, 'GET', `/api/v1/posts/${id}`, { caller: alice })).status).toBe(404);
    expect((await api(app, 'DELETE', `/api/v1/posts/${id}`, { caller: alice })).status).toBe(404);
  });

  it('answers unknown routes under /api with the coded shape', async () => {
    const res = await api(app, 'GET', '/api/v1/nothing', { caller: alice });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: { code: 404, message: expect.any(String) } });
  });
});
