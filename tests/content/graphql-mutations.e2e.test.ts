import { fromGlobalId, toGlobalId } from '@platform/graphql-schema';
import { gql, seedUser, startAuthApp, startContent, stopContent, type RunningContent, type TestUser } from './helpers';

let auth: Awaited<ReturnType<typeof startAuthApp>>;
let app: RunningContent;
let author: TestUser;
let other: TestUser;
let admin: TestUser;
let moderator: TestUser;

beforeAll(async () => {
  auth = await startAuthApp();
  app = await startContent({ AUTH_URL: auth.url });
  author = await seedUser(app, { name: 'Mut Author' });
  other = await seedUser(app, { name: 'Mut Other' });
  admin = await seedUser(app, { name: 'Mut Admin', role: 'ADMIN' });
  moderator = await seedUser(app, { name: 'Mut Mod', role: 'MODERATOR' });
}, 120_000);

afterAll(async () => {
  await stopContent(app);
  await auth?.stop();
});

const POST_FIELDS =
  'success message errors { field message code } post { id title content excerpt status tags publishedAt author { name } }';
type Payload = {
  success: boolean;
  message: string | null;
  errors: { field: string; message: string; code: string | null }[] | null;
  post?: Record<string, unknown> | null;
  user?: Record<string, unknown> | null;
  deletedId?: string | null;
};

describe('post mutations', () => {
  let postId = '';

  it('createPost: DRAFT by default, author = caller', async () => {
    const res = await gql(
      app,
      `mutation($i: CreatePostInput!) { createPost(input: $i) { ${POST_FIELDS} } }`,
      { i: { title: ' Draft one ', content: 'Body', excerpt: 'Short', tags: ['news'] } },
      author,
    );
    const payload = res.data!.createPost as Payload;
    expect(payload).toMatchObject({
      success: true,
      errors: [],
      post: {
        title: 'Draft one',
        status: 'DRAFT',
        excerpt: 'Short',
        tags: ['news'],
        publishedAt: null,
        author: { name: 'Mut Author' },
      },
    });
    postId = (payload.post as { id: string }).id;
  });

  it('createPost validation failures come back as FieldErrors, nothing written', async () => {
    const before = await app.mongo.collection('posts').countDocuments();
    const res = await gql(
      app,
      `mutation($i: CreatePostInput!) { createPost(input: $i) { ${POST_FIELDS} } }`,
      { i: { title: 'x'.repeat(256), content: '', tags: ['Bad Tag!'] } },
      author,
    );
    expect(res.errors).toBeUndefined();
    const payload = res.data!.createPost as Payload;
    expect(payload.success).toBe(false);
    expect(payload.post ?? null).toBeNull();
    expect(payload.errors!.map((e) => e.field).sort()).toEqual(['input.content', 'input.tags', 'input.title']);
    expect(payload.errors!.every((e) => e.code === 'VALIDATION_ERROR')).toBe(true);
    expect(await app.mongo.collection('posts').countDocuments()).toBe(before);
  });

  it('createPost without a caller: success false, UNAUTHORIZED', async () => {
    const res = await gql(
      app,
      `mutation { createPost(input: { title: "t", content: "c" }) { success errors { field code } } }`,
    );
    expect(res.data!.createPost).toEqual({ success: false, errors: [{ field: 'auth', code: 'UNAUTHORIZED' }] });
  });

  it('updatePost merges, publishes (publishedAt once) and enforces ownership in the payload', async () => {
    const update = `mutation($id: ID!, $i: UpdatePostInput!) { updatePost(id: $id, input: $i) { ${POST_FIELDS} } }`;
    const published = (await gql(app, update, { id: postId, i: { status: 'PUBLISHED' } }, author)).data!
      .updatePost as Payload;
    expect(published).toMatchObject({
      success: true,
      post: { title: 'Draft one', status: 'PUBLISHED', publishedAt: expect.any(String) },
    });
    const renamed = (await gql(app, update, { id: postId, i: { title: 'Renamed' } }, author)).data!
      .updatePost as Payload;
    expect(renamed.post).toMatchObject({
      title: 'Renamed',
      status: 'PUBLISHED',
      publishedAt: (published.post as { publishedAt: string }).publishedAt,
    });
    const forbidden = (await gql(app, update, { id: postId, i: { title: 'Hijack' } }, other)).data!
      .updatePost as Payload;
    expect(forbidden).toMatchObject({ success: false, post: null, errors: [{ field: 'id', code: 'FORBIDDEN' }] });
    const byAdmin = (await gql(app, update, { id: postId, i: { content: 'Admin fixed' } }, admin)).data!
      .updatePost as Payload;
    expect(byAdmin).toMatchObject({ success: true, post: { content: 'Admin fixed', author: { name: 'Mut Author' } } });
    const missing = (await gql(app, update, { id: toGlobalId('Post', 987654), i: { title: 'x' } }, author)).data!
      .updatePost as Payload;
    expect(missing).toMatchObject({ success: false, errors: [{ field: 'id', code: 'NOT_FOUND' }] });
    const invalid = (await gql(app, update, { id: postId, i: { title: '' } }, author)).data!.updatePost as Payload;
    expect(invalid).toMatchObject({ success: false, errors: [{ field: 'input.title', code: 'VALIDATION_ERROR' }] });
  });

  it('updatePost: @validate failures are FieldErrors naming the input path with the constraint, nothing written', async () => {
    const update = `mutation($id: ID!, $i: UpdatePostInput!) { updatePost(id: $id, input: $i) { ${POST_FIELDS} } }`;
    const before = await app.mongo.collection('posts').findOne({ _id: Number(fromGlobalId(postId)!.localId) as never });
    const res = await gql(
      app,
      update,
      { id: postId, i: { title: 't'.repeat(256), content: ' ', excerpt: 'e'.repeat(501), tags: ['ok', 'Bad Tag'] } },
      author,
    );
    expect(res.errors).toBeUndefined();
    const payload = res.data!.updatePost as Payload;
    expect(payload).toMatchObject({ success: false, post: null });
    expect([...payload.errors!].sort((a, b) => a.field.localeCompare(b.field))).toEqual([
      { field: 'input.content', message: 'input.content must not be blank', code: 'VALIDATION_ERROR' },
      { field: 'input.excerpt', message: 'input.excerpt must have at most 500 characters', code: 'VALIDATION_ERROR' },
      { field: 'input.tags', message: 'input.tags must match ^[a-z0-9][a-z0-9-]{0,49}$', code: 'VALIDATION_ERROR' },
      { field: 'input.title', message: 'input.title must have at most 255 characters', code: 'VALIDATION_ERROR' },
    ]);
    const after = await app.mongo.collection('posts').findOne({ _id: before!._id });
    expect(after).toEqual(before);
  });

  it('comments: create, reply, update, delete with their errors', async () => {
    const create = `mutation($i: CreateCommentInput!) { createComment(input: $i) { id content parent { id } } }`;
    const c1 = (await gql(app, create, { i: { content: 'First!', postId } }, other)).data!.createComment as {
      id: string;
    };
    const r1 = (await gql(app, create, { i: { content: 'Reply', postId, parentId: c1.id } }, author)).data!
      .createComment as { parent: { id: string } };
    expect(r1.parent.id).toBe(c1.id);
    const noPost = await gql(app, create, { i: { content: 'x', postId: toGlobalId('Post', 424242) } }, other);
    expect(noPost.errors![0]!.extensions!.code).toBe('NOT_FOUND');
    const blank = await gql(app, create, { i: { content: '', postId } }, other);
    expect(blank.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const anon = await gql(app, create, { i: { content: 'x', postId } });
    expect(anon.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');

    const update = `mutation($id: ID!, $c: String!) { updateComment(id: $id, input: { content: $c }) { id content updatedAt } }`;
    const edited = await gql(app, update, { id: c1.id, c: 'First (edited)' }, other);
    expect(edited.data!.updateComment).toMatchObject({ content: 'First (edited)', updatedAt: expect.any(String) });
    const notMine = await gql(app, update, { id: c1.id, c: 'nope' }, author);
    expect(notMine.errors![0]!.extensions!.code).toBe('FORBIDDEN');

    const del = `mutation($id: ID!) { deleteComment(id: $id) { success message deletedId } }`;
    expect((await gql(app, del, { id: c1.id }, author)).data!.deleteComment).toMatchObject({ success: false });
    expect((await gql(app, del, { id: c1.id }, moderator)).data!.deleteComment).toEqual({
      success: true,
      message: expect.any(String),
      deletedId: c1.id,
    });
    expect((await gql(app, del, { id: c1.id }, moderator)).data!.deleteComment).toMatchObject({ success: false });
  });

  it('deletePost: owner only, then gone', async () => {
    const del = `mutation($id: ID!) { deletePost(id: $id) { success message deletedId } }`;
    expect((await gql(app, del, { id: postId }, other)).data!.deletePost).toMatchObject({ success: false });
    expect((await gql(app, del, { id: postId }, author)).data!.deletePost).toEqual({
      success: true,
      message: expect.any(String),
      deletedId: postId,
    });
    expect((await gql(app, `query($id: ID!) { post(id: $id) { id } }`, { id: postId }, author)).data).toEqual({
      post: null,
    });
  });
});

describe('user mutations', () => {
  let created = '';
  it('createUser: ADMIN only; creates the account in auth and the profile here', async () => {
    const q = `mutation($i: CreateUserInput!) { createUser(input: $i) { success message errors { field code } user { id name email role status } } }`;
    const input = {
      name: 'New Mod',
      email: `newmod.${Date.now()}@example.org`,
      password: 'long enough pw',
      role: 'MODERATOR',
    };
    const denied = (await gql(app, q, { i: input }, author)).data!.createUser as Payload;
    expect(denied).toMatchObject({ success: false, user: null, errors: [{ field: 'auth', code: 'FORBIDDEN' }] });
    const ok = (await gql(app, q, { i: input }, admin)).data!.createUser as Payload;
    expect(ok).toMatchObject({
      success: true,
      user: { name: 'New Mod', email: input.email, role: 'MODERATOR', status: 'ACTIVE' },
    });
    created = (ok.user as { id: string }).id;
    const dup = (await gql(app, q, { i: input }, admin)).data!.createUser as Payload;
    expect(dup).toMatchObject({ success: false, errors: [{ field: 'input.email', code: 'CONFLICT' }] });
    const invalid = (await gql(app, q, { i: { ...input, email: 'nope', password: 'short' } }, admin)).data!
      .createUser as Payload;
    expect(invalid.errors!.map((e) => e.field).sort()).toEqual(['input.email', 'input.password']);
  });

  it("createUser refuses a common password and one equal to the email or name with auth's message on input.password", async () => {
    const q = `mutation($i: CreateUserInput!) { createUser(input: $i) { success errors { field message code } user { id } } }`;
    const email = `common.${Date.now()}@example.org`;
    for (const [password, message] of [
      ['12345678', 'is one of the most commonly used passwords; choose another'],
      [email, 'must not be your email address or name'],
      ['New Person', 'must not be your email address or name'],
    ]) {
      const payload = (await gql(app, q, { i: { name: 'New Person', email, password } }, admin)).data!
        .createUser as Payload;
      expect(payload).toEqual({
        success: false,
        user: null,
        errors: [{ field: 'input.password', message, code: 'VALIDATION_ERROR' }],
      });
    }
  });

  it('updateUser: self or ADMIN; status only by ADMIN', async () => {
    const q = `mutation($id: ID!, $i: UpdateUserInput!) { updateUser(id: $id, input: $i) { success errors { field code } user { name avatar status } } }`;
    const self = (
      await gql(
        app,
        q,
        { id: toGlobalId('User', other.id), i: { name: 'Other Renamed', avatar: 'https://example.org/me.png' } },
        other,
      )
    ).data!.updateUser as Payload;
    expect(self).toMatchObject({
      success: true,
      user: { name: 'Other Renamed', avatar: 'https://example.org/me.png' },
    });
    const notSelf = (await gql(app, q, { id: toGlobalId('User', author.id), i: { name: 'x' } }, other)).data!
      .updateUser as Payload;
    expect(notSelf).toMatchObject({ success: false, errors: [{ field: 'id', code: 'FORBIDDEN' }] });
    const statusBySelf = (await gql(app, q, { id: toGlobalId('User', other.id), i: { status: 'SUSPENDED' } }, other))
      .data!.updateUser as Payload;
    expect(statusBySelf).toMatchObject({ success: false, errors: [{ field: 'status', code: 'FORBIDDEN' }] });
    const statusByAdmin = (await gql(app, q, { id: created, i: { status: 'SUSPENDED' } }, admin)).data!
      .updateUser as Payload;
    expect(statusByAdmin).toMatchObject({ success: true, user: { status: 'SUSPENDED' } });
    const badAvatar = (
      await gql(app, q, { id: toGlobalId('User', other.id), i: { avatar: 'javascript:alert(1)' } }, other)
    ).data!.updateUser as Payload;
    expect(badAvatar).toMatchObject({ success: false, errors: [{ field: 'input.avatar', code: 'VALIDATION_ERROR' }] });
  });

  it('updateUser: @validate failures are FieldErrors naming the input path with the constraint, nothing written', async () => {
    const q = `mutation($id: ID!, $i: UpdateUserInput!) { updateUser(id: $id, input: $i) { success message errors { field message code } user { id } } }`;
    const before = await app.mongo.collection('users').findOne({ _id: other.id as never });
    expect(before).toMatchObject({ name: 'Other Renamed' });
    const res = await gql(
      app,
      q,
      {
        id: toGlobalId('User', other.id),
        i: { name: 'n'.repeat(101), email: 'not-an-email', avatar: 'ftp://example.org/a.png' },
      },
      other,
    );
    expect(res.errors).toBeUndefined();
    const payload = res.data!.updateUser as Payload;
    expect(payload).toMatchObject({ success: false, user: null });
    expect([...payload.errors!].sort((a, b) => a.field.localeCompare(b.field))).toEqual([
      { field: 'input.avatar', message: 'input.avatar must be an http(s) URL', code: 'VALIDATION_ERROR' },
      { field: 'input.email', message: 'input.email must be a valid email address', code: 'VALIDATION_ERROR' },
      { field: 'input.name', message: 'input.name must have at most 100 characters', code: 'VALIDATION_ERROR' },
    ]);
    const blank = (await gql(app, q, { id: toGlobalId('User', other.id), i: { name: '   ' } }, other)).data!
      .updateUser as Payload;
    expect(blank.errors).toEqual([
      { field: 'input.name', message: 'input.name must not be blank', code: 'VALIDATION_ERROR' },
    ]);
    expect(await app.mongo.collection('users').findOne({ _id: other.id as never })).toEqual(before);
  });

  it('deleteUser: ADMIN only', async () => {
    const q = `mutation($id: ID!) { deleteUser(id: $id) { success message deletedId } }`;
    expect((await gql(app, q, { id: created }, author)).data!.deleteUser).toMatchObject({ success: false });
    expect((await gql(app, q, { id: created }, admin)).data!.deleteUser).toEqual({
      success: true,
      message: expect.any(String),
      deletedId: created,
    });
    expect((await gql(app, `query($id: ID!) { user(id: $id) { id } }`, { id: created }, admin)).data).toEqual({
      user: null,
    });
    expect((await gql(app, q, { id: created }, admin)).data!.deleteUser).toMatchObject({ success: false });
  });
});
