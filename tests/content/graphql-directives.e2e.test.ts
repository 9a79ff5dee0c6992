import { api, gql, seedUser, startContent, stopContent, type RunningContent, type TestUser } from './helpers';

let app: RunningContent;
let replica: RunningContent;
let author: TestUser;
let reader: TestUser;
let moderator: TestUser;

beforeAll(async () => {
  app = await startContent();
  // A second replica on the same database and Redis prefix: the cache is shared.
  replica = await startContent({}, { db: app.db, topicPrefix: app.topicPrefix, redisPrefix: app.redisPrefix });
  author = await seedUser(app, { name: 'Dir Author' });
  reader = await seedUser(app, { name: 'Dir Reader' });
  moderator = await seedUser(app, { name: 'Dir Mod', role: 'MODERATOR' });
}, 120_000);

afterAll(async () => {
  await stopContent(replica, false);
  await stopContent(app);
});

async function raw(target: RunningContent, query: string, variables: Record<string, unknown>, caller: TestUser) {
  const res = await api(target, 'POST', '/graphql', { caller, body: { query, variables } });
  return res.json as { data: Record<string, unknown>; extensions?: { cacheHits?: number } };
}

describe('@auth(requires:) with ADMIN > MODERATOR > USER', () => {
  it('a MODERATOR is below ADMIN; a token without content:write cannot mutate', async () => {
    const q = `mutation { createUser(input: { name: "x", email: "x@example.org", password: "long enough pw" }) { success errors { field code } } }`;
    expect((await gql(app, q, {}, moderator)).data!.createUser).toEqual({
      success: false,
      errors: [{ field: 'auth', code: 'FORBIDDEN' }],
    });
    const readOnly = { id: author.id, role: 'USER' as const, scope: 'content:read' };
    const res = await gql(
      app,
      `mutation { createPost(input: { title: "t", content: "c" }) { success message errors { code } } }`,
      {},
      readOnly,
    );
    expect(res.data!.createPost).toEqual({
      success: false,
      message: 'Token lacks the content:write scope',
      errors: [{ code: 'FORBIDDEN' }],
    });
  });
});

describe('@validate(constraint:)', () => {
  it('checks arguments of queries with top-level BAD_USER_INPUT naming the argument', async () => {
    const empty = await gql(app, `{ search(query: "") { __typename } }`, {}, reader);
    expect(empty.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fieldErrors: [{ field: 'query', code: 'VALIDATION_ERROR' }],
    });
    const tooMany = await gql(app, `{ search(query: "x", limit: 51) { __typename } }`, {}, reader);
    expect(tooMany.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'limit' }] });
  });
});

describe('@cache(ttl:)', () => {
  it('serves a cached result (shared across replicas) until a mutation of that type invalidates it', async () => {
    const created = await gql(
      app,
      `mutation { createPost(input: { title: "Cached", content: "v1", status: PUBLISHED }) { post { id } } }`,
      {},
      author,
    );
    const id = (created.data!.createPost as { post: { id: string } }).post.id;
    const q = `query($id: ID!) { post(id: $id) { title content } }`;
    const first = await raw(app, q, { id }, reader);
    expect(first.data.post).toEqual({ title: 'Cached', content: 'v1' });
    expect(first.extensions?.cacheHits).toBeUndefined();
    // Change the stored document behind the service's back: a cache hit still shows the old title.
    await app.mongo
      .collection('posts')
      .updateOne(
        { _id: Number(Buffer.from(id, 'base64url').toString().split(':')[1]) as never },
        { $set: { title: 'Changed in DB' } },
      );
    const hit = await raw(replica, q, { id }, reader);
    expect(hit.data.post).toEqual({ title: 'Cached', content: 'v1' });
    expect(hit.extensions?.cacheHits).toBe(1);
    // A post mutation invalidates every cached post result at once.
    const updated = await gql(
      app,
      `mutation($id: ID!) { updatePost(id: $id, input: { content: "v2" }) { success } }`,
      { id },
      author,
    );
    expect(updated.data!.updatePost).toEqual({ success: true });
    const fresh = await raw(replica, q, { id }, reader);
    expect(fresh.data.post).toEqual({ title: 'Changed in DB', content: 'v2' });
    expect(fresh.extensions?.cacheHits).toBeUndefined();
  });

  it("authors come from each replica's memo until a profile write, which every replica sees once it returned (GraphQL and REST)", async () => {
    const writer = await seedUser(app, { name: 'Memo Author' });
    const created = await gql(
      app,
      `mutation { createPost(input: { title: "Memo", content: "m", status: PUBLISHED }) { post { id } } }`,
      {},
      writer,
    );
    const id = (created.data!.createPost as { post: { id: string } }).post.id;
    const restId = Number(Buffer.from(id, 'base64url').toString().split(':')[1]);
    const q = `query($id: ID!) { post(id: $id) { author { name } } }`;
    const authorName = async () => ({
      graphql: ((await raw(replica, q, { id }, reader)).data.post as { author: { name: string } }).author.name,
      rest: ((await api(replica, 'GET', `/api/v1/posts/${restId}`, { caller: reader })).json as { author_name: string })
        .author_name,
    });
    expect(await authorName()).toEqual({ graphql: 'Memo Author', rest: 'Memo Author' });
    // Changed behind the service's back: the replica's memo still answers, so no MongoDB read was made.
    await app.mongo.collection('users').updateOne({ _id: writer.id as never }, { $set: { name: 'Changed in DB' } });
    expect(await authorName()).toEqual({ graphql: 'Memo Author', rest: 'Memo Author' });
    // A profile write through the other replica moves the User version: this one reads the new profile.
    const renamed = await gql(
      app,
      `mutation($id: ID!) { updateUser(id: $id, input: { name: "Renamed Author" }) { success } }`,
      { id: writer.id },
      writer,
    );
    expect(renamed.data!.updateUser).toEqual({ success: true });
    expect(await authorName()).toEqual({ graphql: 'Renamed Author', rest: 'Renamed Author' });
  });

  it('a connection cached without totalCount is not served to the same query with totalCount (counted, then cached with it)', async () => {
    const writer = await seedUser(app, { name: 'Counted Author' });
    for (const title of ['Counted 1', 'Counted 2', 'Counted 3']) {
      const res = await gql(
        app,
        `mutation($t: String!) { createPost(input: { title: $t, content: "c", status: PUBLISHED }) { success } }`,
        { t: title },
        writer,
      );
      expect(res.data!.createPost).toEqual({ success: true });
    }
    const page = `edges { node { title } } pageInfo { hasNextPage }`;
    const withoutCount = `query($a: ID) { posts(filter: { authorId: $a }, first: 2) { ${page} } }`;
    const withCount = `query($a: ID) { posts(filter: { authorId: $a }, first: 2) { ${page} ...Total } } fragment Total on PostConnection { totalCount }`;
    const vars = { a: writer.id };
    const first = await raw(app, withoutCount, vars, reader);
    expect(first.extensions?.cacheHits).toBeUndefined();
    expect(first.data.posts).toEqual({
      edges: [{ node: { title: 'Counted 3' } }, { node: { title: 'Counted 2' } }],
      pageInfo: { hasNextPage: true },
    });
    expect((await raw(replica, withoutCount, vars, reader)).extensions?.cacheHits).toBe(1);
    // Same field, arguments and caller, now selecting totalCount (through a fragment): counted, not a hit.
    const counted = await raw(replica, withCount, vars, reader);
    expect(counted.extensions?.cacheHits).toBeUndefined();
    expect(counted.data.posts).toEqual({ ...(first.data.posts as object), totalCount: 3 });
    // Cached with its count: a hit on either replica carries the number.
    const hit = await raw(app, withCount, vars, reader);
    expect(hit.extensions?.cacheHits).toBe(1);
    expect(hit.data.posts).toEqual(counted.data.posts);
  });

  it('keeps callers’ views apart (a draft cached for its author is not served to others)', async () => {
    const created = await gql(
      app,
      `mutation { createPost(input: { title: "Private draft", content: "c" }) { post { id } } }`,
      {},
      author,
    );
    const id = (created.data!.createPost as { post: { id: string } }).post.id;
    const q = `query($id: ID!) { post(id: $id) { title } }`;
    expect((await gql(app, q, { id }, author)).data).toEqual({ post: { title: 'Private draft' } });
    expect((await gql(app, q, { id }, reader)).data).toEqual({ post: null });
  });
});

describe('@rateLimit(limit:, duration:)', () => {
  it('rejects the 31st search within a minute per caller, not other callers', async () => {
    const limited = await seedUser(app, { name: 'Busy Searcher' });
    const q = `{ search(query: "anything", limit: 1) { __typename } }`;
    for (let i = 0; i < 30; i++) expect((await gql(app, q, {}, limited)).errors).toBeUndefined();
    const rejected = await gql(app, q, {}, limited);
    expect(rejected.errors![0]!.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    // Counted in Redis: the other replica sees the same budget.
    expect((await gql(replica, q, {}, limited)).errors![0]!.extensions!.code).toBe('RATE_LIMITED');
    expect((await gql(app, q, {}, reader)).errors).toBeUndefined();
  });
});

describe('@deprecated and the rest of the schema', () => {
  it('marks the earlier variants deprecated in introspection', async () => {
    const res = await gql(
      app,
      `{ __type(name: "Role") { enumValues(includeDeprecated: true) { name isDeprecated deprecationReason } } }`,
      {},
      reader,
    );
    const values = (
      res.data!.__type as { enumValues: { name: string; isDeprecated: boolean; deprecationReason: string | null }[] }
    ).enumValues;
    expect(values.find((v) => v.name === 'GUEST')).toEqual({
      name: 'GUEST',
      isDeprecated: true,
      deprecationReason: expect.any(String),
    });
    expect(values.find((v) => v.name === 'ADMIN')!.isDeprecated).toBe(false);
  });

  it('answers subscriptions over HTTP with a pointer to the gateway', async () => {
    const res = await gql(app, `subscription { onPostCreated { id } }`, {}, reader);
    expect(res.errors?.[0]).toBeDefined();
    expect(res.status).not.toBe(500);
  });
});
