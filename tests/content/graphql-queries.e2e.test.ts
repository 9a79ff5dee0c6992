import { toGlobalId } from '@platform/graphql-schema';
import { gql, seedUser, startContent, stopContent, type RunningContent, type TestUser } from './helpers';

let app: RunningContent;
let author: TestUser;
let reader: TestUser;
let admin: TestUser;
const users: TestUser[] = [];

const CREATE_POST = `mutation($i: CreatePostInput!) { createPost(input: $i) { success post { id title } errors { field message } } }`;

async function createPost(caller: TestUser, input: Record<string, unknown>): Promise<string> {
  const res = await gql(app, CREATE_POST, { i: input }, caller);
  const payload = res.data!.createPost as { success: boolean; post: { id: string } };
  expect(payload.success).toBe(true);
  return payload.post.id;
}

beforeAll(async () => {
  app = await startContent();
  const base = Date.UTC(2025, 0, 1);
  // 120 users with distinct creation times (the collection the pagination test walks) …
  for (let i = 0; i < 120; i++) {
    users.push(
      await seedUser(app, { name: `Member ${String(i).padStart(3, '0')}`, createdAt: new Date(base + i * 1000) }),
    );
  }
  // … plus the actors, created later so they sort first in the default newest-first order.
  author = await seedUser(app, { name: 'Grace Author', createdAt: new Date(base + 500_000) });
  reader = await seedUser(app, { name: 'Rita Reader', createdAt: new Date(base + 500_001) });
  admin = await seedUser(app, { name: 'Ada Admin', role: 'ADMIN', createdAt: new Date(base + 500_002) });
}, 120_000);

afterAll(async () => stopContent(app));

describe('me, user, node', () => {
  it('me: the caller; anonymous gets UNAUTHENTICATED', async () => {
    const me = await gql(app, '{ me { id name email role status createdAt } }', {}, reader);
    expect(me.data!.me).toEqual({
      id: toGlobalId('User', reader.id),
      name: 'Rita Reader',
      email: reader.email,
      role: 'USER',
      status: 'ACTIVE',
      createdAt: expect.any(String),
    });
    const anon = await gql(app, '{ me { id } }');
    expect(anon.data).toEqual({ me: null });
    expect(anon.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });

  it('user(id): by global or local id; email only for self and admins; unknown → null', async () => {
    const global = toGlobalId('User', author.id);
    const asReader = await gql(app, `query($id: ID!) { user(id: $id) { id name email } }`, { id: global }, reader);
    expect(asReader.data!.user).toEqual({ id: global, name: 'Grace Author', email: null });
    const asAdmin = await gql(app, `query($id: ID!) { user(id: $id) { email } }`, { id: author.id }, admin);
    expect(asAdmin.data!.user).toEqual({ email: author.email });
    const unknown = await gql(
      app,
      `query($id: ID!) { user(id: $id) { id } }`,
      { id: toGlobalId('User', 'nobody') },
      reader,
    );
    expect(unknown.data).toEqual({ user: null });
    expect(unknown.errors).toBeUndefined();
  });

  it('node(id) resolves users, posts and comments; junk ids give null', async () => {
    const postId = await createPost(author, { title: 'Node post', content: 'c', status: 'PUBLISHED' });
    const comment = await gql(
      app,
      `mutation($i: CreateCommentInput!) { createComment(input: $i) { id } }`,
      { i: { content: 'node comment', postId } },
      reader,
    );
    const commentId = (comment.data!.createComment as { id: string }).id;
    const q = `query($id: ID!) { node(id: $id) { __typename id createdAt ... on User { name } ... on Post { title } ... on Comment { content } } }`;
    expect((await gql(app, q, { id: toGlobalId('User', author.id) }, reader)).data!.node).toMatchObject({
      __typename: 'User',
      name: 'Grace Author',
    });
    expect((await gql(app, q, { id: postId }, reader)).data!.node).toMatchObject({
      __typename: 'Post',
      id: postId,
      title: 'Node post',
    });
    expect((await gql(app, q, { id: commentId }, reader)).data!.node).toMatchObject({
      __typename: 'Comment',
      content: 'node comment',
    });
    for (const junk of ['', 'garbage!', toGlobalId('Post', 'abc'), Buffer.from('Thing:1').toString('base64url')]) {
      const res = await gql(app, q, { id: junk }, reader);
      expect(res.data).toEqual({ node: null });
    }
  });
});

describe('users connection', () => {
  const PAGE = `query($first: Int, $after: String, $last: Int, $before: String, $filter: UserFilter) {
    users(first: $first, after: $after, last: $last, before: $before, filter: $filter, orderBy: { field: CREATED_AT, direction: ASC }) {
      totalCount edges { cursor node { name } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
  type Page = {
    totalCount: number;
    edges: { cursor: string; node: { name: string } }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  };
  const filter = { search: 'member' };

  it('walks 120 users forward and back without gaps or repeats', async () => {
    const expected = users.map((u) => u.name);
    const forward: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const res = await gql(app, PAGE, { first: 25, after, filter }, reader);
      const page = res.data!.users as Page;
      expect(page.totalCount).toBe(120);
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      forward.push(...page.edges.map((e) => e.node.name));
      pages++;
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(pages).toBe(5);
    expect(forward).toEqual(expected);

    const backward: string[] = [];
    let before: string | null = null;
    for (;;) {
      const res = await gql(app, PAGE, { last: 30, before, filter }, reader);
      const page = res.data!.users as Page;
      expect(page.pageInfo.hasNextPage).toBe(before !== null);
      backward.unshift(...page.edges.map((e) => e.node.name));
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(backward).toEqual(expected);
  });

  it('filters by role and orders by NAME', async () => {
    const admins = await gql(
      app,
      `{ users(filter: { role: ADMIN }) { totalCount edges { node { name role } } } }`,
      {},
      reader,
    );
    expect(admins.data!.users).toEqual({ totalCount: 1, edges: [{ node: { name: 'Ada Admin', role: 'ADMIN' } }] });
    const byName = await gql(
      app,
      `{ users(first: 3, orderBy: { field: NAME, direction: DESC }) { edges { node { name } } } }`,
      {},
      reader,
    );
    expect((byName.data!.users as Page).edges.map((e) => e.node.name)).toEqual([
      'Rita Reader',
      'Member 119',
      'Member 118',
    ]);
  });

  it('rejects malformed cursors, oversized pages and mixed directions with BAD_USER_INPUT', async () => {
    for (const variables of [
      { first: 5, after: 'not-a-cursor' },
      { first: 5, after: Buffer.from('["nameLower","x",1]').toString('base64url') },
      { first: 5, after: Buffer.from('{"$gt":""}').toString('base64url') },
      { first: 500 },
      { first: -1 },
      { first: 5, last: 5 },
    ]) {
      const res = await gql(app, PAGE, variables, reader);
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });
});

describe('posts', () => {
  let published: string[];
  let draft: string;
  beforeAll(async () => {
    published = [];
    for (const [i, title] of ['Alpha kafka', 'Beta mongo', 'Gamma redis'].entries()) {
      published.push(
        await createPost(author, { title, content: `Body ${i} about databases`, status: 'PUBLISHED', tags: ['db'] }),
      );
    }
    draft = await createPost(author, { title: 'Hidden draft', content: 'secret' });
  });

  it('post(id): published for all, drafts only for author and moderators', async () => {
    const q = `query($id: ID!) { post(id: $id) { id title status tags viewCount publishedAt excerpt author { id name } } }`;
    expect((await gql(app, q, { id: published[0] })).data!.post).toMatchObject({
      title: 'Alpha kafka',
      status: 'PUBLISHED',
      tags: ['db'],
      viewCount: 0,
      publishedAt: expect.any(String),
    });
    expect((await gql(app, q, { id: draft }, reader)).data).toEqual({ post: null });
    expect((await gql(app, q, { id: draft }, author)).data!.post).toMatchObject({
      title: 'Hidden draft',
      status: 'DRAFT',
      publishedAt: null,
    });
    expect((await gql(app, q, { id: draft }, admin)).data!.post).toMatchObject({ title: 'Hidden draft' });
  });

  it('posts: filter by status, author and search; orderBy title', async () => {
    const q = `query($f: PostFilter, $o: PostOrderBy) { posts(filter: $f, orderBy: $o, first: 50) { totalCount edges { node { title } } } }`;
    const titles = (r: Awaited<ReturnType<typeof gql>>) =>
      (r.data!.posts as { edges: { node: { title: string } }[] }).edges.map((e) => e.node.title);
    const mine = await gql(
      app,
      q,
      { f: { authorId: toGlobalId('User', author.id) }, o: { field: TITLE_FIELD, direction: 'ASC' } },
      author,
    );
    expect(titles(mine)).toEqual(['Alpha kafka', 'Beta mongo', 'Gamma redis', 'Hidden draft', 'Node post']);
    const othersView = await gql(
      app,
      q,
      { f: { authorId: author.id }, o: { field: TITLE_FIELD, direction: 'ASC' } },
      reader,
    );
    expect(titles(othersView)).toEqual(['Alpha kafka', 'Beta mongo', 'Gamma redis', 'Node post']);
    const drafts = await gql(app, q, { f: { status: 'DRAFT' } }, reader);
    expect(titles(drafts)).toEqual([]);
    const search = await gql(app, q, { f: { search: 'MONGO' } }, reader);
    expect(titles(search)).toEqual(['Beta mongo']);
    const newest = await gql(
      app,
      `{ posts(first: 2) { edges { node { title } } pageInfo { hasNextPage } } }`,
      {},
      reader,
    );
    expect(newest.data!.posts).toEqual({
      edges: [{ node: { title: 'Gamma redis' } }, { node: { title: 'Beta mongo' } }],
      pageInfo: { hasNextPage: true },
    });
  });

  it('comment(id) with parent, replies and post', async () => {
    const add = `mutation($i: CreateCommentInput!) { createComment(input: $i) { id content parent { id } post { id } author { name } } }`;
    const top = (await gql(app, add, { i: { content: 'Top level', postId: published[1] } }, reader)).data!
      .createComment as { id: string };
    const reply = (await gql(app, add, { i: { content: 'A reply', postId: published[1], parentId: top.id } }, author))
      .data!.createComment as { id: string; parent: { id: string } };
    expect(reply.parent).toEqual({ id: top.id });
    const q = `query($id: ID!) { comment(id: $id) { content post { title } replies(first: 5) { totalCount edges { node { content author { name } } } } } }`;
    expect((await gql(app, q, { id: top.id }, reader)).data!.comment).toEqual({
      content: 'Top level',
      post: { title: 'Beta mongo' },
      replies: { totalCount: 1, edges: [{ node: { content: 'A reply', author: { name: 'Grace Author' } } }] },
    });
    const postComments = await gql(
      app,
      `query($id: ID!) { post(id: $id) { comments { totalCount edges { node { content } } } } }`,
      { id: published[1] },
      reader,
    );
    expect(postComments.data!.post).toEqual({
      comments: { totalCount: 2, edges: [{ node: { content: 'Top level' } }, { node: { content: 'A reply' } }] },
    });
    expect((await gql(app, q, { id: toGlobalId('Comment', 999999) }, reader)).data).toEqual({ comment: null });
  });

  it('search ranks by relevance across types and honours type and limit', async () => {
    await createPost(author, { title: 'Kafka deep dive', content: 'kafka kafka', status: 'PUBLISHED' });
    await createPost(author, { title: 'Misc', content: 'mentions kafkaesque things', status: 'PUBLISHED' });
    await createPost(author, { title: 'Kafka draft', content: 'not visible', status: 'DRAFT' });
    const q = `query($q: String!, $t: SearchType, $l: Int) { search(query: $q, type: $t, limit: $l) { __typename ... on Post { title } ... on User { name } ... on Comment { content } } }`;
    const posts = await gql(app, q, { q: 'kafka', t: 'POST' }, reader);
    expect(posts.data!.search).toEqual([
      { __typename: 'Post', title: 'Kafka deep dive' },
      { __typename: 'Post', title: 'Alpha kafka' },
      { __typename: 'Post', title: 'Misc' },
    ]);
    const limited = await gql(app, q, { q: 'kafka', t: 'POST', l: 1 }, reader);
    expect(limited.data!.search).toEqual([{ __typename: 'Post', title: 'Kafka deep dive' }]);
    const people = await gql(app, q, { q: 'rita', t: 'USER' }, reader);
    expect(people.data!.search).toEqual([{ __typename: 'User', name: 'Rita Reader' }]);
    const comments = await gql(app, q, { q: 'reply', t: 'COMMENT' }, reader);
    expect(comments.data!.search).toEqual([{ __typename: 'Comment', content: 'A reply' }]);
    const all = await gql(app, q, { q: 'grace' }, reader);
    expect(all.data!.search).toEqual([{ __typename: 'User', name: 'Grace Author' }]);
    const regexy = await gql(app, q, { q: '.* (a+)+$ [' }, reader);
    expect(regexy.data!.search).toEqual([]);
  });
});

describe('limits and bad input', () => {
  it('rejects too-deep queries with QUERY_TOO_DEEP', async () => {
    const deep = `{ posts(first: 1) { edges { node { author { posts(first: 1) { edges { node { author { posts(first: 1) { edges { node { title } } } } } } } } } } } }`;
    const res = await gql(app, deep, {}, reader);
    expect(res.status).toBe(400);
    expect(res.errors![0]!.extensions!.code).toBe('QUERY_TOO_DEEP');
  });

  it('rejects too-costly queries with QUERY_TOO_COMPLEX, counting variables', async () => {
    const q = `query($n: Int) { posts(first: $n) { edges { node { comments(first: $n) { edges { node { replies(first: $n) { totalCount } } } } } } } }`;
    const res = await gql(app, q, { n: 100 }, reader);
    expect(res.status).toBe(400);
    expect(res.errors![0]!.extensions!.code).toBe('QUERY_TOO_COMPLEX');
    expect((await gql(app, q, { n: 3 }, reader)).errors).toBeUndefined();
  });

  it('wrong types, unknown fields and injection attempts get clear errors, never a 500', async () => {
    // graphql-request asks for no media type, so the answer is application/json, where GraphQL over HTTP
    // gives variable coercion and validation failures status 200 (400 under application/graphql-response+json).
    const wrongType = await gql(app, `query($id: ID!) { post(id: $id) { id } }`, { id: { $gt: '' } }, reader);
    expect(wrongType.status).toBe(200);
    expect(wrongType.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const unknownField = await gql(app, `{ posts { nope } }`, {}, reader);
    expect(unknownField.status).toBe(200);
    expect(unknownField.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const syntax = await gql(app, `{ posts { `, {}, reader);
    expect(syntax.errors![0]!.extensions!.code).toBe('GRAPHQL_PARSE_FAILED');
    const filterInjection = await gql(
      app,
      `query($f: PostFilter) { posts(filter: $f) { totalCount } }`,
      { f: { search: { $regex: '.*' } } },
      reader,
    );
    expect(filterInjection.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const stringOperator = await gql(
      app,
      `query($f: PostFilter) { posts(filter: $f) { totalCount } }`,
      { f: { search: '{"$gt": ""}' } },
      reader,
    );
    expect(stringOperator.data).toEqual({ posts: { totalCount: 0 } });
  });
});

const TITLE_FIELD = 'TITLE';
