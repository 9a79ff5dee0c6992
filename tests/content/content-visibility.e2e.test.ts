import { toGlobalId } from '@platform/graphql-schema';
import { gql, seedUser, startContent, stopContent, type Caller, type RunningContent, type TestUser } from './helpers';

/**
 * What a caller may read decides what every path of the content GraphQL interface shows: page
 * cursors carry nothing readable (and sorting by a field the caller may not read is refused), and
 * a comment on a post the caller may not see is hidden on every path that reaches comments,
 * counts included.
 */
let app: RunningContent;
let author: TestUser;
let commenter: TestUser;
let stranger: TestUser;
let moderator: TestUser;
let admin: TestUser;

const CREATE_POST = `mutation($i: CreatePostInput!) { createPost(input: $i) { success post { id } } }`;
const UPDATE_POST = `mutation($id: ID!, $i: UpdatePostInput!) { updatePost(id: $id, input: $i) { success } }`;
const CREATE_COMMENT = `mutation($i: CreateCommentInput!) { createComment(input: $i) { id } }`;

async function createPost(caller: TestUser, input: Record<string, unknown>): Promise<string> {
  const res = await gql(app, CREATE_POST, { i: input }, caller);
  const payload = res.data!.createPost as { success: boolean; post: { id: string } };
  expect(payload.success).toBe(true);
  return payload.post.id;
}

async function comment(caller: TestUser, postId: string, content: string, parentId?: string): Promise<string> {
  const res = await gql(app, CREATE_COMMENT, { i: { content, postId, ...(parentId ? { parentId } : {}) } }, caller);
  expect(res.errors).toBeUndefined();
  return (res.data!.createComment as { id: string }).id;
}

/** Every printable-ASCII run of 4+ characters in the base64url decoding of `cursor` (what a client could read out of it). */
function readableText(cursor: string): string {
  return (
    Buffer.from(cursor, 'base64url')
      .toString('latin1')
      .match(/[\x20-\x7e]{4,}/g) ?? []
  ).join(' ');
}

beforeAll(async () => {
  app = await startContent();
  author = await seedUser(app, { name: 'Vera Author', email: 'vera.secret@example.org' });
  commenter = await seedUser(app, { name: 'Carl Commenter', email: 'carl.hidden@example.org' });
  stranger = await seedUser(app, { name: 'Sam Stranger' });
  moderator = await seedUser(app, { name: 'Mia Moderator', role: 'MODERATOR' });
  admin = await seedUser(app, { name: 'Abe Admin', role: 'ADMIN' });
}, 120_000);

afterAll(async () => stopContent(app));

describe('page cursors', () => {
  const USERS = `query($o: UserOrderBy, $after: String) { users(first: 2, orderBy: $o, after: $after) { edges { cursor node { name } } pageInfo { endCursor } } }`;
  type Page = { edges: { cursor: string; node: { name: string } }[]; pageInfo: { endCursor: string | null } };

  it('sorting users by EMAIL is refused with FORBIDDEN to every caller who may not read others’ emails', async () => {
    for (const caller of ['anonymous', stranger, moderator] as Caller[]) {
      const res = await gql(app, USERS, { o: { field: 'EMAIL', direction: 'ASC' } }, caller);
      expect(res.status).toBe(200);
      expect(res.data).toBeNull();
      expect(res.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
    const asAdmin = await gql(app, USERS, { o: { field: 'EMAIL', direction: 'ASC' } }, admin);
    expect(asAdmin.errors).toBeUndefined();
    expect((asAdmin.data!.users as Page).edges).toHaveLength(2);
  });

  it('cursors reveal neither the sort value nor the id, in any order, even to an admin sorting by EMAIL', async () => {
    const secrets = [
      author.email,
      commenter.email,
      author.name,
      commenter.name,
      author.id,
      commenter.id,
      ...[author, commenter].map((u) => u.email.split('@')[0]!),
    ];
    const cursors: string[] = [];
    for (const [field, caller] of [
      ['NAME', 'anonymous'],
      ['CREATED_AT', stranger],
      ['UPDATED_AT', stranger],
      ['EMAIL', admin],
    ] as [string, Caller][]) {
      for (const direction of ['ASC', 'DESC']) {
        let after: string | null = null;
        // Every user's cursor in this order.
        for (;;) {
          const res = await gql(app, USERS, { o: { field, direction }, after }, caller);
          expect(res.errors).toBeUndefined();
          const page = res.data!.users as Page;
          cursors.push(...page.edges.map((e) => e.cursor));
          if (page.edges.length < 2) break;
          after = page.pageInfo.endCursor;
        }
      }
    }
    expect(cursors.length).toBeGreaterThanOrEqual(4 * 2 * 5);
    for (const cursor of cursors) {
      const text = readableText(cursor).toLowerCase();
      for (const secret of secrets) expect(text).not.toContain(secret.toLowerCase().slice(0, 8));
    }
    // Post titles and dates neither.
    await createPost(author, { title: 'Cursor title secret', content: 'x', status: 'PUBLISHED' });
    const posts = await gql(
      app,
      `{ posts(first: 5, orderBy: { field: TITLE, direction: ASC }) { edges { cursor } } }`,
      {},
      stranger,
    );
    const postCursors = (posts.data!.posts as { edges: { cursor: string }[] }).edges.map((e) => e.cursor);
    expect(postCursors.length).toBeGreaterThan(0);
    for (const cursor of postCursors)
      expect(readableText(cursor).toLowerCase()).not.toMatch(/cursor title|titlelower|\d{4}/);
  });

  it('cursors still page: the next page after an opaque cursor continues the order', async () => {
    const first = await gql(app, USERS, { o: { field: 'NAME', direction: 'ASC' } }, stranger);
    const page1 = first.data!.users as Page;
    const second = await gql(
      app,
      USERS,
      { o: { field: 'NAME', direction: 'ASC' }, after: page1.pageInfo.endCursor },
      stranger,
    );
    const page2 = second.data!.users as Page;
    expect([...page1.edges, ...page2.edges].map((e) => e.node.name)).toEqual([
      'Abe Admin',
      'Carl Commenter',
      'Mia Moderator',
      'Sam Stranger',
    ]);
  });

  it('a tampered, forged, foreign-order or oversized cursor is a clear BAD_USER_INPUT, never a 500', async () => {
    const first = await gql(app, USERS, { o: { field: 'NAME', direction: 'ASC' } }, stranger);
    const cursor = (first.data!.users as Page).pageInfo.endCursor!;
    const flipped = cursor.slice(0, 20) + (cursor[20] === 'A' ? 'B' : 'A') + cursor.slice(21);
    const forged = [
      flipped,
      cursor.slice(0, -2),
      cursor + 'AA',
      // The cursor format before it was sealed: readable JSON of [field, value, id].
      Buffer.from(JSON.stringify(['nameLower', 'carl commenter', commenter.id])).toString('base64url'),
      Buffer.from(JSON.stringify(['email', { $gt: '' }, 1])).toString('base64url'),
      'A'.repeat(5000),
      '%%%',
    ];
    for (const after of forged) {
      const res = await gql(app, USERS, { o: { field: 'NAME', direction: 'ASC' }, after }, stranger);
      expect(res.status).toBeLessThan(500);
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    // A cursor of one order does not position another.
    const other = await gql(app, USERS, { o: { field: 'CREATED_AT', direction: 'ASC' }, after: cursor }, stranger);
    expect(other.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('comments on posts the caller may not see', () => {
  let post: string;
  let top: string;
  let reply: string;
  let publicPost: string;

  beforeAll(async () => {
    post = await createPost(author, { title: 'Soon a draft', content: 'body', status: 'PUBLISHED' });
    top = await comment(commenter, post, 'hidden top comment');
    reply = await comment(author, post, 'hidden reply', top);
    publicPost = await createPost(author, { title: 'Stays public', content: 'body', status: 'PUBLISHED' });
    await comment(commenter, publicPost, 'visible comment');
    // The post goes back to draft: its comments now follow it out of sight.
    const res = await gql(app, UPDATE_POST, { id: post, i: { status: 'DRAFT' } }, author);
    expect((res.data!.updatePost as { success: boolean }).success).toBe(true);
  });

  const USER_COMMENTS = `query($id: ID!) { user(id: $id) { comments(first: 20) { totalCount edges { node { content } } } } }`;
  type Comments = { totalCount: number; edges: { node: { content: string } }[] };

  it('User.comments and its totalCount hide them from anonymous callers, other users and the commenter alike', async () => {
    for (const caller of ['anonymous', stranger, commenter] as Caller[]) {
      const res = await gql(app, USER_COMMENTS, { id: toGlobalId('User', commenter.id) }, caller);
      expect(res.errors).toBeUndefined();
      const comments = (res.data!.user as { comments: Comments }).comments;
      expect(comments).toEqual({ totalCount: 1, edges: [{ node: { content: 'visible comment' } }] });
      const authors = await gql(app, USER_COMMENTS, { id: toGlobalId('User', author.id) }, caller);
      expect((authors.data!.user as { comments: Comments }).comments).toEqual({ totalCount: 0, edges: [] });
    }
  });

  it('the post’s author and moderators still see them, counted', async () => {
    for (const caller of [author, moderator, admin]) {
      const res = await gql(app, USER_COMMENTS, { id: toGlobalId('User', commenter.id) }, caller);
      const comments = (res.data!.user as { comments: Comments }).comments;
      expect(comments.totalCount).toBe(2);
      expect(comments.edges.map((e) => e.node.content).sort()).toEqual(['hidden top comment', 'visible comment']);
    }
    const replies = await gql(
      app,
      `query($id: ID!) { comment(id: $id) { replies { totalCount edges { node { content parent { content } } } } } }`,
      { id: top },
      moderator,
    );
    expect(replies.data!.comment).toEqual({
      replies: {
        totalCount: 1,
        edges: [{ node: { content: 'hidden reply', parent: { content: 'hidden top comment' } } }],
      },
    });
  });

  it('comment(id), node(id) and search hide them too', async () => {
    for (const caller of ['anonymous', stranger, commenter] as Caller[]) {
      for (const id of [top, reply]) {
        expect((await gql(app, `query($id: ID!) { comment(id: $id) { content } }`, { id }, caller)).data).toEqual({
          comment: null,
        });
        expect((await gql(app, `query($id: ID!) { node(id: $id) { id } }`, { id }, caller)).data).toEqual({
          node: null,
        });
      }
      const found = await gql(app, `{ search(query: "hidden", type: COMMENT) { __typename } }`, {}, caller);
      expect(found.data).toEqual({ search: [] });
    }
  });

  it('updateComment and deleteComment answer NOT_FOUND for them, as for a missing comment, and change nothing', async () => {
    const update = await gql(
      app,
      `mutation($id: ID!) { updateComment(id: $id, input: { content: "edited" }) { content } }`,
      { id: top },
      commenter,
    );
    expect(update.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const byStranger = await gql(
      app,
      `mutation($id: ID!) { updateComment(id: $id, input: { content: "edited" }) { content } }`,
      { id: top },
      stranger,
    );
    expect(byStranger.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const DELETE = `mutation($id: ID!) { deleteComment(id: $id) { success message deletedId } }`;
    const missing = await gql(app, DELETE, { id: toGlobalId('Comment', 987654321) }, stranger);
    expect(missing.data!.deleteComment).toEqual({
      success: false,
      message: expect.stringMatching(/not found/i),
      deletedId: null,
    });
    const del = await gql(app, DELETE, { id: reply }, stranger);
    expect(del.data!.deleteComment).toEqual(missing.data!.deleteComment);
    const stored = await gql(
      app,
      `query($id: ID!) { comment(id: $id) { content replies { totalCount } } }`,
      { id: top },
      author,
    );
    expect(stored.data!.comment).toEqual({ content: 'hidden top comment', replies: { totalCount: 1 } });
  });

  it('drafts stay hidden on every path to posts', async () => {
    const q = `query($id: ID!) { user(id: $id) { posts(first: 20) { totalCount edges { node { title } } } } }`;
    for (const caller of ['anonymous', stranger, commenter] as Caller[]) {
      const res = await gql(app, q, { id: author.id }, caller);
      const titles = (res.data!.user as { posts: { totalCount: number; edges: { node: { title: string } }[] } }).posts;
      expect(titles.edges.map((e) => e.node.title)).not.toContain('Soon a draft');
      expect(titles.totalCount).toBe(titles.edges.length);
      const search = await gql(app, `{ search(query: "draft", type: POST) { __typename } }`, {}, caller);
      expect(search.data).toEqual({ search: [] });
      const posts = await gql(app, `{ posts(first: 50) { totalCount edges { node { title } } } }`, {}, caller);
      expect(
        (posts.data!.posts as { edges: { node: { title: string } }[] }).edges.map((e) => e.node.title),
      ).not.toContain('Soon a draft');
    }
  });
});
