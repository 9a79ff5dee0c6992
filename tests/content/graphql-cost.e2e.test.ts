import { withProfiler } from '@platform/testing';
import { gql, seedUser, startContent, stopContent, type RunningContent, type TestUser } from './helpers';

/**
 * The query cost model (libs/graphql-schema, docs/content.md "Limits and batching") on the running
 * content app: counts and text searches are priced for their work, repeated selections are capped,
 * and an operation over a limit is refused before any database work.
 */
let app: RunningContent;
let author: TestUser;
let reader: TestUser;
const postIds: string[] = [];

const CREATE_POST = `mutation($i: CreatePostInput!) { createPost(input: $i) { success post { id } } }`;

beforeAll(async () => {
  app = await startContent();
  author = await seedUser(app, { name: 'Cost Author' });
  reader = await seedUser(app, { name: 'Cost Reader' });
  for (let i = 0; i < 6; i++) {
    const res = await gql(
      app,
      CREATE_POST,
      { i: { title: i % 2 ? `needle ${i}` : `hay ${i}`, content: 'body', status: 'PUBLISHED' } },
      author,
    );
    postIds.push((res.data!.createPost as { post: { id: string } }).post.id);
  }
}, 120_000);

afterAll(async () => stopContent(app));

/** Operations the database profiler saw on the posts collection while `run` ran. */
async function postsOperationsDuring(run: () => Promise<void>): Promise<number> {
  const db = app.mongo.db!;
  await withProfiler(db, run);
  return db.collection('system.profile').countDocuments({ ns: `${app.db}.posts` });
}

describe('query cost', () => {
  it('refuses a thousand aliased text-search counts with QUERY_TOO_COMPLEX, before touching the database', async () => {
    const fields = Array.from(
      { length: 1000 },
      (_, i) => `c${i}: posts(first: 0, filter: { search: "needle" }) { totalCount }`,
    ).join(' ');
    let res: Awaited<ReturnType<typeof gql>> | undefined;
    const operations = await postsOperationsDuring(async () => {
      res = await gql(app, `{ ${fields} }`, {}, reader);
    });
    expect(res!.status).toBe(400);
    expect(res!.data ?? null).toBeNull();
    expect(res!.errors![0]!.extensions!.code).toBe('QUERY_TOO_COMPLEX');
    expect(operations).toBe(0);
    // The profiler does see the same query's work when it runs: one count.
    const one = await postsOperationsDuring(async () => {
      const ok = await gql(app, `{ posts(first: 0, filter: { search: "needle" }) { totalCount } }`, {}, reader);
      expect(ok.data).toEqual({ posts: { totalCount: 3 } });
    });
    expect(one).toBeGreaterThan(0);
  });

  it('caps repeated selections at 30 aliases per operation', async () => {
    const aliased = (n: number) =>
      `query($id: ID!) { ${Array.from({ length: n }, (_, i) => `p${i}: post(id: $id) { id }`).join(' ')} }`;
    const atCap = await gql(app, aliased(31), { id: postIds[0] }, reader);
    expect(atCap.errors).toBeUndefined();
    expect(Object.keys(atCap.data!)).toHaveLength(31);
    const over = await gql(app, aliased(32), { id: postIds[0] }, reader);
    expect(over.status).toBe(400);
    expect(over.errors![0]!.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', aliases: 31, maxAliases: 30 });
  });

  it('checks repeated selections before validation (whose overlapping-fields check is quadratic in them)', async () => {
    // 600 selections under one response name, with a field that does not exist: refused for its shape, never validated.
    const repeated = `{ ${Array.from({ length: 600 }, () => 'a: posts { totalCount nope }').join(' ')} }`;
    const res = await gql(app, repeated, {}, reader);
    expect(res.status).toBe(400);
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', aliases: 599, maxAliases: 30 });
    // The same mistake without the repeats is a validation error as before.
    const once = await gql(app, '{ a: posts { totalCount nope } }', {}, reader);
    expect(once.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('prices a count per item: a page of 100 posts with three counts each is over budget, a page of 20 is not', async () => {
    const q = `query($n: Int) { posts(first: $n) { edges { node { comments(first: 0) { totalCount } author { posts(first: 0) { totalCount } comments(first: 0) { totalCount } } } } } }`;
    const big = await gql(app, q, { n: 100 }, reader);
    expect(big.status).toBe(400);
    expect(big.errors![0]!.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', maxCost: 5000 });
    const small = await gql(app, q, { n: 20 }, reader);
    expect(small.errors).toBeUndefined();
    expect((small.data!.posts as { edges: unknown[] }).edges).toHaveLength(6);
  });
});

describe('GRAPHQL_MAX_COST', () => {
  let small: RunningContent;
  beforeAll(async () => {
    small = await startContent({ GRAPHQL_MAX_COST: '100' });
  }, 120_000);
  afterAll(async () => stopContent(small));

  it('sets the budget per request', async () => {
    // 1 + 5 + 50 for the searched page, 1 + 50 for its count: 107.
    const search = '{ posts(first: 0, filter: { search: "needle" }) { totalCount } }';
    const refused = await gql(small, search, {}, 'anonymous');
    expect(refused.status).toBe(400);
    expect(refused.errors![0]!.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', cost: 107, maxCost: 100 });
    expect(
      (await gql(small, '{ posts(first: 10) { edges { node { title } } } }', {}, 'anonymous')).errors,
    ).toBeUndefined();
    expect((await gql(app, search, {}, reader)).errors).toBeUndefined();
  });
});
