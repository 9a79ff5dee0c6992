import mongoose, { type Connection } from 'mongoose';
import { Redis } from 'ioredis';
import { execute, parse } from 'graphql';
import { stackEnv, uniqueName } from '@platform/testing';
import { createUserMemo, requestUserVersion } from '../src/cache/user-memo';
import { createVersionedCache } from '../src/cache/versioned-cache';
import type { ContentDeps } from '../src/domain/deps';
import { buildSchema } from '../src/graphql/graphql-mount';
import { createCursorCodec, type CursorCodec } from '../src/graphql/cursors';
import { createLoaders } from '../src/graphql/loaders';
import { callerFromIdentity } from '../src/identity/caller';
import { createModels, syncIndexes, type Models, type UserDoc } from '../src/models';

/** Counts the database round trips one GraphQL operation costs, on a real mongod. */
let connection: Connection;
let redis: Redis;
let models: Models;
const commands: string[] = [];
/** The projection of every `find` on posts, in order (undefined: whole documents). */
const postFinds: (Record<string, unknown> | undefined)[] = [];
/** Cursors sealed by the last run. */
let seals = 0;
const prefix = `${uniqueName('batching')}:`;

beforeAll(async () => {
  connection = mongoose.createConnection(stackEnv().MONGO_URL, {
    dbName: uniqueName('batching'),
    monitorCommands: true,
  });
  await connection.asPromise();
  connection.getClient().on('commandStarted', (event) => {
    commands.push(`${event.commandName} ${String(event.command[event.commandName])}`);
    if (event.commandName === 'find' && event.command.find === 'posts')
      postFinds.push(event.command.projection as Record<string, unknown> | undefined);
  });
  redis = new Redis(stackEnv().REDIS_URL);
  models = createModels(connection);
  await syncIndexes(models);
  const now = Date.now();
  await models.users.insertMany(
    Array.from({ length: 10 }, (_, i) => ({
      _id: `u${i}`,
      name: `User ${i}`,
      nameLower: `user ${i}`,
      email: `u${i}@example.org`,
      createdAt: new Date(now),
      updatedAtSort: new Date(now),
      rev: 1,
    })),
  );
  await models.posts.insertMany(
    Array.from({ length: 60 }, (_, i) => ({
      _id: i + 1,
      title: `Post ${i}`,
      titleLower: `post ${i}`,
      slug: `post-${i}`,
      content: 'c',
      status: 'PUBLISHED',
      published: true,
      publishedAt: new Date(now),
      publishedAtSort: new Date(now),
      author: `u${i % 10}`,
      createdAt: new Date(now + i),
      rev: 1,
    })),
  );
  await models.comments.insertMany(
    Array.from({ length: 120 }, (_, i) => ({
      _id: i + 1,
      content: 'hi',
      author: `u${i % 10}`,
      post: (i % 60) + 1,
      createdAt: new Date(now + i),
      rev: 1,
    })),
  );
}, 60_000);

afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

interface Run {
  data: Record<string, unknown>;
  /** `command collection` of every read, e.g. `find posts`, `aggregate posts` (countDocuments is an aggregate). */
  reads: string[];
  cacheHits: number | undefined;
}

const cache = () => createVersionedCache(redis, prefix);
const caller = callerFromIdentity(
  { sub: 'u0', roles: ['USER'], scope: 'content:read', method: 'internal' },
  '127.0.0.1',
);

async function run(query: string, variableValues: Record<string, unknown> = {}): Promise<Run> {
  const deps: ContentDeps = { models, auth: {} as ContentDeps['auth'], invalidate: (t) => cache().invalidate(t) };
  const schema = buildSchema({ redis, cache: cache(), redisPrefix: prefix });
  const codec = createCursorCodec('graphql-batching-test-secret-0123456789');
  const cursors: CursorCodec = {
    seal: (plaintext, purpose) => ((seals += 1), codec.seal(plaintext, purpose)),
    open: (cursor, purpose) => codec.open(cursor, purpose),
  };
  const contextValue: Record<string, unknown> = { caller, deps, loaders: createLoaders(deps), cursors };
  commands.length = 0;
  postFinds.length = 0;
  seals = 0;
  const result = await execute({ schema, document: parse(query), variableValues, contextValue });
  expect(result.errors).toBeUndefined();
  const reads = commands.filter((c) => ['find', 'aggregate', 'count'].includes(c.split(' ')[0]!));
  return {
    data: result.data as Record<string, unknown>,
    reads: [...reads].sort(),
    cacheHits: contextValue.cacheHits as number | undefined,
  };
}

async function roundTrips(first: number): Promise<number> {
  // A fresh cache version so @cache on `posts` does not answer from Redis.
  await cache().invalidate('Post');
  const result = await run(
    `query($n: Int) { posts(first: $n) { totalCount edges { node { title author { name } comments { totalCount } } } } }`,
    { n: first },
  );
  const edges = (
    result.data.posts as { edges: { node: { author: { name: string }; comments: { totalCount: number } } }[] }
  ).edges;
  expect(edges).toHaveLength(first);
  expect(edges.every((e) => e.node.author.name.startsWith('User') && e.node.comments.totalCount === 2)).toBe(true);
  return result.reads.length;
}

it('a page of 50 posts with authors and comment counts costs a constant number of database round trips', async () => {
  const ten = await roundTrips(10);
  const fifty = await roundTrips(50);
  // posts page + totalCount + one batched author lookup + one batched comment-count aggregate.
  expect(fifty).toBe(4);
  expect(ten).toBe(fifty);
});

describe('totalCount is counted only when selected', () => {
  const page = 'edges { node { title author { name } } }';

  beforeEach(() =>
    cache()
      .invalidate('Post')
      .then(() => cache().invalidate('User')),
  );

  it('posts: no count query without totalCount, one with it (directly, through a fragment, or unless skipped)', async () => {
    const without = await run(`{ posts(first: 20) { ${page} pageInfo { hasNextPage } } }`);
    expect(without.reads).toEqual(['find posts', 'find users']);
    expect((without.data.posts as { edges: unknown[] }).edges).toHaveLength(20);

    await cache().invalidate('Post');
    const withCount = await run(`{ posts(first: 20) { totalCount ${page} } }`);
    expect(withCount.reads).toEqual(['aggregate posts', 'find posts', 'find users']);
    expect((withCount.data.posts as { totalCount: number }).totalCount).toBe(60);

    await cache().invalidate('Post');
    const fragment = await run(
      `{ posts(first: 20) { ...Counted ${page} } } fragment Counted on PostConnection { n: totalCount }`,
    );
    expect(fragment.reads).toEqual(['aggregate posts', 'find posts', 'find users']);
    expect((fragment.data.posts as { n: number }).n).toBe(60);

    await cache().invalidate('Post');
    const skipped = await run(
      `query($s: Boolean!) { posts(first: 20) { ... on PostConnection { totalCount @skip(if: $s) } ${page} } }`,
      { s: true },
    );
    expect(skipped.reads).toEqual(['find posts', 'find users']);
  });

  it('users and a user’s posts and comments: the same rule', async () => {
    const without = await run(
      `{ users(first: 5) { edges { node { name posts(first: 2) { edges { node { title } } } comments(first: 2) { edges { node { id } } } } } } }`,
    );
    expect(without.reads.filter((r) => r.startsWith('aggregate'))).toEqual([]);
    await cache().invalidate('User');
    const withCount = await run(
      `{ users(first: 5) { totalCount edges { node { name posts(first: 2) { totalCount } comments(first: 2) { totalCount } } } } }`,
    );
    const data = withCount.data.users as {
      totalCount: number;
      edges: { node: { posts: { totalCount: number }; comments: { totalCount: number } } }[];
    };
    expect(data.totalCount).toBe(10);
    expect(data.edges.every((e) => e.node.posts.totalCount === 6 && e.node.comments.totalCount === 12)).toBe(true);
    // users count + 5 users' post counts + 5 users' comment counts.
    expect(withCount.reads.filter((r) => r.startsWith('aggregate'))).toHaveLength(11);
  });

  it('@cache: an entry cached without totalCount is never served to a selection with it', async () => {
    const without = `{ posts(first: 5) { ${page} } }`;
    const withCount = `{ posts(first: 5) { totalCount ${page} } }`;
    const miss = await run(without);
    expect(miss.cacheHits).toBeUndefined();
    expect(miss.reads).toEqual(['find posts', 'find users']);
    const hit = await run(without);
    expect(hit.cacheHits).toBe(1);
    expect(hit.reads).toEqual(['find users']); // authors are resolved live
    // Same field, arguments and caller, now with totalCount: counted (not an entry lacking it).
    const counted = await run(withCount);
    expect(counted.cacheHits).toBeUndefined();
    expect(counted.reads).toEqual(['aggregate posts', 'find posts', 'find users']);
    expect((counted.data.posts as { totalCount: number }).totalCount).toBe(60);
    const countedHit = await run(withCount);
    expect(countedHit.cacheHits).toBe(1);
    expect(countedHit.reads).toEqual(['find users']);
    expect(countedHit.data).toEqual(counted.data);
    // And the entry with totalCount does not replace the one without it.
    expect((await run(without)).cacheHits).toBe(1);
  });
});

describe('a page of posts reads the fields its selection needs', () => {
  beforeEach(() => cache().invalidate('Post'));

  type Nodes = { edges: { node: Record<string, unknown> }[] };
  const nodes = (r: Run): Record<string, unknown>[] => (r.data.posts as Nodes).edges.map((e) => e.node);

  it('a list of titles reads no bodies; a selection of bodies reads them (directly, aliased, through a fragment, unless skipped)', async () => {
    const titles = await run('{ posts(first: 5) { edges { node { title author { name } } } } }');
    expect(nodes(titles).map((n) => n.title)).toEqual(['Post 59', 'Post 58', 'Post 57', 'Post 56', 'Post 55']);
    expect(postFinds).toHaveLength(1);
    expect(Object.keys(postFinds[0] ?? {}).sort()).toEqual(['_id', 'author', 'createdAt', 'status', 'title']);

    await cache().invalidate('Post');
    const bodies = await run(
      'query($b: Boolean!) { posts(first: 5) { edges { node { t: title ...Body } } } } fragment Body on Post { body: content @include(if: $b) }',
      { b: true },
    );
    expect(nodes(bodies).map((n) => [n.t, n.body])).toEqual([59, 58, 57, 56, 55].map((i) => [`Post ${i}`, 'c']));
    expect(postFinds[0]).toMatchObject({ content: 1, title: 1 });

    await cache().invalidate('Post');
    await run(
      'query($b: Boolean!) { posts(first: 5) { edges { node { t: title ...Body } } } } fragment Body on Post { body: content @include(if: $b) }',
      { b: false },
    );
    expect(postFinds[0]).not.toHaveProperty('content');
  });

  it('the sort field is read for the cursors, and a second page continues where the first ended', async () => {
    const first = await run(
      '{ posts(first: 3, orderBy: { field: TITLE, direction: ASC }) { edges { cursor node { id } } pageInfo { endCursor } } }',
    );
    expect(postFinds[0]).toMatchObject({ titleLower: 1, _id: 1 });
    const end = (first.data.posts as { pageInfo: { endCursor: string } }).pageInfo.endCursor;
    const second = await run(
      'query($a: String) { posts(first: 3, after: $a, orderBy: { field: TITLE, direction: ASC }) { edges { node { title } } } }',
      { a: end },
    );
    expect(nodes(second).map((n) => n.title)).toEqual(['Post 11', 'Post 12', 'Post 13']);
  });

  it('@cache: an entry stored for one selection is never served to a selection that needs more', async () => {
    const titles = '{ posts(first: 5) { edges { node { title } } } }';
    const bodies = '{ posts(first: 5) { edges { node { title content } } } }';
    expect((await run(titles)).cacheHits).toBeUndefined();
    expect((await run(titles)).cacheHits).toBe(1);
    const wider = await run(bodies);
    expect(wider.cacheHits).toBeUndefined();
    expect(nodes(wider).every((n) => n.content === 'c')).toBe(true);
    expect((await run(bodies)).cacheHits).toBe(1);
  });

  it('comments and author of listed posts still resolve from the projected documents', async () => {
    const r = await run(
      '{ posts(first: 2) { edges { node { id status author { name } comments(first: 5) { edges { node { content } } } } } } }',
    );
    expect(
      nodes(r).map((n) => [n.status, (n.author as { name: string }).name, (n.comments as Nodes).edges.length]),
    ).toEqual([
      ['PUBLISHED', 'User 9', 2],
      ['PUBLISHED', 'User 8', 2],
    ]);
  });
});

describe('cursors are sealed only when selected', () => {
  beforeEach(() => cache().invalidate('Post'));

  it('a list without cursors seals none; edges { cursor } or pageInfo { endCursor } seal them', async () => {
    await run('{ posts(first: 5) { edges { node { title } } pageInfo { hasNextPage } } }');
    expect(seals).toBe(0);
    await cache().invalidate('Post');
    const withEdges = await run('{ posts(first: 5) { edges { c: cursor node { title } } } }');
    expect(seals).toBe(5);
    expect((withEdges.data.posts as { edges: { c: string }[] }).edges.every((e) => e.c.length > 0)).toBe(true);
    await cache().invalidate('Post');
    const withEnd = await run(
      '{ posts(first: 5) { ...End } } fragment End on PostConnection { pageInfo { endCursor } }',
    );
    expect(seals).toBe(5);
    expect((withEnd.data.posts as { pageInfo: { endCursor: string } }).pageInfo.endCursor.length).toBeGreaterThan(0);
  });

  it('@cache: an entry stored without cursors is never served to a selection of them', async () => {
    expect((await run('{ posts(first: 5) { edges { node { title } } } }')).cacheHits).toBeUndefined();
    const paged = await run('{ posts(first: 5) { edges { node { title } } pageInfo { endCursor } } }');
    expect(paged.cacheHits).toBeUndefined();
    const end = (paged.data.posts as { pageInfo: { endCursor: string } }).pageInfo.endCursor;
    const next = await run('query($a: String) { posts(first: 2, after: $a) { edges { node { title } } } }', { a: end });
    expect((next.data.posts as { edges: { node: { title: string } }[] }).edges.map((e) => e.node.title)).toEqual([
      'Post 54',
      'Post 53',
    ]);
  });
});

describe('the author memo reads its User version in the @cache look-up', () => {
  let versionReads = 0;
  const users = createUserMemo({
    readVersion: (type) => {
      versionReads += 1;
      return cache().version(type);
    },
    findUsers: (ids) => models.users.find({ _id: { $in: ids } }).lean<UserDoc[]>(),
    maxEntries: 100,
  });
  async function runWithMemo(query: string) {
    const deps: ContentDeps = {
      models,
      auth: {} as ContentDeps['auth'],
      invalidate: (t) => cache().invalidate(t),
      users,
    };
    const schema = buildSchema({ redis, cache: cache(), redisPrefix: prefix });
    const userVersion = requestUserVersion(users.version);
    const contextValue = {
      caller,
      deps,
      loaders: createLoaders(deps, userVersion),
      cursors: createCursorCodec('graphql-batching-test-secret-0123456789'),
      userVersion,
    };
    versionReads = 0;
    const result = await execute({ schema, document: parse(query), contextValue });
    expect(result.errors).toBeUndefined();
    return result.data as Record<string, unknown>;
  }
  const authorOf = (data: Record<string, unknown>, title: string) =>
    (data.posts as { edges: { node: { title: string; author: { name: string } } }[] }).edges.find(
      (e) => e.node.title === title,
    )?.node.author.name;

  it('a cached list of posts with authors asks Redis for no version of its own, and still shows a rename at once', async () => {
    await cache().invalidate('Post');
    const query = '{ posts(first: 3) { edges { node { title author { name } } } } }';
    expect(authorOf(await runWithMemo(query), 'Post 59')).toBe('User 9');
    expect(versionReads).toBe(0);
    // Served from the @cache entry, the authors from the memo: still no version read of its own.
    expect(authorOf(await runWithMemo(query), 'Post 59')).toBe('User 9');
    expect(versionReads).toBe(0);
    // A profile write commits, then bumps the User version: the next request reads the new name.
    await models.users.updateOne({ _id: 'u9' }, { $set: { name: 'Renamed 9' } });
    await cache().invalidate('User');
    expect(authorOf(await runWithMemo(query), 'Post 59')).toBe('Renamed 9');
    expect(versionReads).toBe(0);
    await models.users.updateOne({ _id: 'u9' }, { $set: { name: 'User 9' } });
    await cache().invalidate('User');
  });

  it('an operation with no @cache field reads the version itself when it loads its first user', async () => {
    const data = await runWithMemo('{ comment(id: "1") { author { name } } }');
    expect((data.comment as { author: { name: string } }).author.name).toBe('User 0');
    expect(versionReads).toBe(1);
  });
});
