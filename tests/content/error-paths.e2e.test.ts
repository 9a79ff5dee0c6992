/**
 * Error paths of the content API that no other test pinned down: the coded `{error: {code, message}}` shape when
 * auth is unreachable (503 from register, login and refresh), 404 for changes to a post that does
 * not exist, and GraphQL payload failures (`success: false` with FieldErrors / DeleteResult) for
 * ids that name nothing. Content runs without auth here (its AUTH_URL is a closed port).
 */
import { toGlobalId } from '@platform/graphql-schema';
import { api, gql, seedUser, startContent, stopContent, type RunningContent, type TestUser } from './helpers';

let app: RunningContent;
let author: TestUser;
let other: TestUser;
let admin: TestUser;

beforeAll(async () => {
  app = await startContent();
  author = await seedUser(app, { name: 'Seed Author' });
  other = await seedUser(app, { name: 'Seed Other' });
  admin = await seedUser(app, { name: 'Seed Admin', role: 'ADMIN' });
}, 120_000);

afterAll(async () => {
  await stopContent(app);
});

type Payload = {
  success: boolean;
  message: string | null;
  errors: { field: string; message: string; code: string | null }[] | null;
};

describe('REST rule 4: auth unreachable is 503 in the coded shape', () => {
  it.each([
    ['register', '/api/v1/auth/register', { name: 'Ada', email: 'ada.down@example.org', password: 'long enough pw' }],
    ['login', '/api/v1/auth/login', { email: 'ada.down@example.org', password: 'long enough pw' }],
    ['refresh', '/api/v1/auth/refresh', { refresh_token: 'rt_whatever' }],
  ])('%s', async (_name, path, body) => {
    const res = await api(app, 'POST', path, { caller: 'anonymous', body });
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ error: { code: 503, message: expect.any(String) } });
  });

  it('nothing was stored by the failed registration', async () => {
    expect(await app.mongo.collection('users').countDocuments({ email: 'ada.down@example.org' })).toBe(0);
  });
});

describe('REST rule 2: changes to a post that does not exist are 404 {error}', () => {
  it.each(['PUT', 'PATCH', 'DELETE'])('%s /posts/{unknown id}', async (method) => {
    const body = method === 'DELETE' ? undefined : { title: 'x', content: 'y' };
    const res = await api(app, method, '/api/v1/posts/987654321', { caller: author, ...(body ? { body } : {}) });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: expect.any(String) });
  });

  it('a non-numeric id is 404 too', async () => {
    const res = await api(app, 'PATCH', '/api/v1/posts/not-a-number', { caller: author, body: { title: 'x' } });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: expect.any(String) });
  });
});

describe('GraphQL payload failures for ids that name nothing', () => {
  it('updateUser of an unknown user: success false, NOT_FOUND on id', async () => {
    const q =
      'mutation($id: ID!, $i: UpdateUserInput!) { updateUser(id: $id, input: $i) { success message errors { field message code } user { id } } }';
    const res = await gql(app, q, { id: toGlobalId('User', 'ffffffffffffffffffffffff'), i: { name: 'Ghost' } }, admin);
    expect(res.errors).toBeUndefined();
    expect(res.data!.updateUser).toMatchObject({
      success: false,
      user: null,
      errors: [{ field: 'id', code: 'NOT_FOUND' }],
    });
  });

  it('deletePost of an unknown post: DeleteResult success false with a message', async () => {
    const res = await gql(
      app,
      'mutation($id: ID!) { deletePost(id: $id) { success message deletedId } }',
      { id: toGlobalId('Post', 987654) },
      admin,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.deletePost).toEqual({ success: false, message: expect.any(String), deletedId: null });
  });

  it('deleteUser of an unknown user: DeleteResult success false with a message', async () => {
    const res = await gql(
      app,
      'mutation($id: ID!) { deleteUser(id: $id) { success message deletedId } }',
      { id: toGlobalId('User', 'ffffffffffffffffffffffff') },
      admin,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.deleteUser).toEqual({ success: false, message: expect.any(String), deletedId: null });
  });

  it('updatePost and deletePost without a caller: success false, UNAUTHORIZED, nothing changed', async () => {
    const created = (
      await gql(
        app,
        'mutation { createPost(input: { title: "Mine", content: "Body" }) { success post { id title } } }',
        {},
        author,
      )
    ).data!.createPost as { post: { id: string } };
    const id = created.post.id;
    const update = (
      await gql(
        app,
        'mutation($id: ID!) { updatePost(id: $id, input: { title: "Anon" }) { success errors { field code } } }',
        { id },
      )
    ).data!.updatePost as Payload;
    expect(update).toEqual({ success: false, errors: [{ field: 'auth', code: 'UNAUTHORIZED' }] });
    const del = (await gql(app, 'mutation($id: ID!) { deletePost(id: $id) { success message } }', { id })).data!
      .deletePost as Payload;
    expect(del).toMatchObject({ success: false });
    const still = await gql(app, 'query($id: ID!) { post(id: $id) { title } }', { id }, author);
    expect(still.data).toEqual({ post: { title: 'Mine' } });
  });

  it('updateComment of an unknown comment and a reply to a comment of another post are top-level errors', async () => {
    const update = await gql(
      app,
      'mutation($id: ID!) { updateComment(id: $id, input: { content: "x" }) { id } }',
      { id: toGlobalId('Comment', 'ffffffffffffffffffffffff') },
      author,
    );
    expect(update.errors![0]!.extensions!.code).toBe('NOT_FOUND');

    const publish =
      'mutation($t: String!) { createPost(input: { title: $t, content: "Body", status: PUBLISHED }) { post { id } } }';
    const p1 = ((await gql(app, publish, { t: 'One' }, author)).data!.createPost as { post: { id: string } }).post.id;
    const p2 = ((await gql(app, publish, { t: 'Two' }, author)).data!.createPost as { post: { id: string } }).post.id;
    const create = 'mutation($i: CreateCommentInput!) { createComment(input: $i) { id } }';
    const c1 = (await gql(app, create, { i: { content: 'on one', postId: p1 } }, other)).data!.createComment as {
      id: string;
    };
    const before = await app.mongo.collection('comments').countDocuments();
    const crossed = await gql(app, create, { i: { content: 'reply elsewhere', postId: p2, parentId: c1.id } }, other);
    expect(crossed.data?.createComment ?? null).toBeNull();
    expect(crossed.errors![0]!.extensions!.code).toMatch(/BAD_USER_INPUT|NOT_FOUND/);
    expect(await app.mongo.collection('comments').countDocuments()).toBe(before);
  });

  it("createComment on another user's draft: refused as if the post did not exist", async () => {
    const draft = (
      (
        await gql(
          app,
          'mutation { createPost(input: { title: "Draft", content: "Body" }) { post { id } } }',
          {},
          author,
        )
      ).data!.createPost as { post: { id: string } }
    ).post.id;
    const res = await gql(
      app,
      'mutation($i: CreateCommentInput!) { createComment(input: $i) { id } }',
      { i: { content: 'peek', postId: draft } },
      other,
    );
    expect(res.data?.createComment ?? null).toBeNull();
    expect(res.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });
});
