import mongoose, { type Connection } from 'mongoose';
import { Redis } from 'ioredis';
import { execute, parse } from 'graphql';
import type { Producer } from 'kafkajs';
import type { Logger } from '@platform/logger';
import { toGlobalId } from '@platform/graphql-schema';
import { stackEnv, uniqueName } from '@platform/testing';
import { createVersionedCache } from '../src/cache/versioned-cache';
import type { ContentDeps } from '../src/domain/deps';
import { buildSchema } from '../src/graphql/graphql-mount';
import { createCursorCodec } from '../src/graphql/cursors';
import { createLoaders } from '../src/graphql/loaders';
import { callerFromIdentity, type Caller } from '../src/identity/caller';
import { createModels, syncIndexes, type Models } from '../src/models';
import { createRelay } from '../src/outbox/relay';
import { listPublished } from '../src/posts/post-reads';
import { listUsers } from '../src/users/user-reads';

/**
 * Every list, search and filter query content sends is answered through an index, on a real
 * mongod: the winning plan reads an index (IXSCAN, COUNT_SCAN, IDHACK), never scans the
 * collection (COLLSCAN), and never sorts a page in memory (SORT; SORT_MERGE of index-ordered
 * branches is fine). The queries are not restated here: the test runs the service's own read paths
 * (GraphQL operations through the real schema and resolvers, the REST list functions, the outbox
 * relay), records every command they send, and explains each one.
 */
let connection: Connection;
let redis: Redis;
let models: Models;
const prefix = `${uniqueName('indexes')}:`;
const READS = new Set(['find', 'aggregate', 'count', 'distinct']);
const COLLECTIONS = new Set(['users', 'posts', 'comments', 'outbox']);
let recording: Record<string, unknown>[] | undefined;

const USERS = 120;
const POSTS = 300;
const COMMENTS = 600;
const userId = (i: number) => `user${String(i).padStart(4, '0')}`;
const caller = (id: string | null, role: 'USER' | 'MODERATOR' | 'ADMIN' = 'USER'): Caller =>
  callerFromIdentity(
    id
      ? { sub: id, roles: [role], scope: 'content:read', method: 'internal' }
      : { roles: [], scope: '', method: 'anonymous' },
    '127.0.0.1',
  );
const CALLERS: [string, Caller][] = [
  ['anonymous', caller(null)],
  ['a user', caller(userId(1))],
  ['a moderator', caller(userId(2), 'MODERATOR')],
];

beforeAll(async () => {
  connection = mongoose.createConnection(stackEnv().MONGO_URL, {
    dbName: uniqueName('indexes'),
    monitorCommands: true,
  });
  await connection.asPromise();
  connection.getClient().on('commandStarted', (event) => {
    const collection = event.command[event.commandName] as unknown;
    if (recording && READS.has(event.commandName) && typeof collection === 'string' && COLLECTIONS.has(collection))
      recording.push(event.command);
  });
  redis = new Redis(stackEnv().REDIS_URL);
  models = createModels(connection);
  await syncIndexes(models);
  const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 60_000);
  const statuses = ['ACTIVE', 'ACTIVE', 'ACTIVE', 'INACTIVE', 'SUSPENDED', 'PENDING'] as const;
  const roles = ['USER', 'USER', 'USER', 'USER', 'MODERATOR', 'ADMIN'] as const;
  await models.users.insertMany(
    Array.from({ length: USERS }, (_, i) => ({
      _id: userId(i),
      name: `User ${i}`,
      nameLower: `user ${i}`,
      email: `u${i}@example.org`,
      status: statuses[i % statuses.length],
      role: roles[i % roles.length],
      createdAt: at(i),
      updatedAt: i % 3 === 0 ? at(i + 1000) : null,
      updatedAtSort: i % 3 === 0 ? at(i + 1000) : at(i),
      rev: 1,
    })),
  );
  const postStatuses = ['PUBLISHED', 'PUBLISHED', 'DRAFT', 'ARCHIVED'] as const;
  await models.posts.insertMany(
    Array.from({ length: POSTS }, (_, i) => {
      const status = postStatuses[i % postStatuses.length]!;
      return {
        _id: i + 1,
        title: `Post ${i}`,
        titleLower: `post ${i}`,
        slug: `post-${i}`,
        content: `Body of post ${i} about ${i % 2 === 0 ? 'typescript' : 'mongodb'}`,
        status,
        published: status === 'PUBLISHED',
        publishedAt: status === 'PUBLISHED' ? at(i + 10) : null,
        publishedAtSort: status === 'PUBLISHED' ? at(i + 10) : new Date(0),
        viewCount: (i * 7) % 50,
        author: userId(i % 40),
        category: i % 5 === 0 ? 'news' : null,
        tags: i % 3 === 0 ? ['typescript', 'databases'] : ['misc'],
        createdAt: at(i),
        rev: 1,
      };
    }),
  );
  await models.comments.insertMany(
    Array.from({ length: COMMENTS }, (_, i) => ({
      _id: i + 1,
      content: `Comment ${i} on typescript`,
      author: userId(i % 40),
      post: (i % POSTS) + 1,
      parent: i >= POSTS ? i - POSTS + 1 : null,
      createdAt: at(i + 100),
      rev: 1,
    })),
  );
}, 60_000);

afterAll(async () => {
  await connection?.dropDatabase();
  await connection?.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const deps = (): ContentDeps => ({ models, auth: {} as ContentDeps['auth'], invalidate: async () => undefined });

/** The read commands `work` sends. */
async function recorded(work: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  recording = [];
  try {
    await work();
    return recording;
  } finally {
    recording = undefined;
  }
}

async function graphql(
  query: string,
  variableValues: Record<string, unknown>,
  who: Caller,
): Promise<Record<string, unknown>> {
  const cache = createVersionedCache(redis, prefix);
  // Fresh cache versions: @cache must not answer without querying.
  await Promise.all([cache.invalidate('User'), cache.invalidate('Post'), cache.invalidate('Comment')]);
  const d = deps();
  const result = await execute({
    schema: buildSchema({ redis, cache, redisPrefix: prefix }),
    document: parse(query),
    variableValues,
    contextValue: {
      caller: who,
      deps: d,
      loaders: createLoaders(d),
      cursors: createCursorCodec('list-indexes-test-secret-0123456789'),
    },
  });
  expect(result.errors).toBeUndefined();
  return result.data as Record<string, unknown>;
}

/** Every `stage` in the winning plan, in whatever shape this server's explain output takes. */
function winningStages(explain: unknown): string[] {
  const stages: string[] = [];
  const walk = (node: unknown, inPlan: boolean): void => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, inPlan));
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'rejectedPlans' || key === 'slotBasedPlan') continue;
      if (inPlan && key === 'stage' && typeof value === 'string') stages.push(value);
      walk(value, inPlan || key === 'winningPlan');
    }
  };
  walk(explain, false);
  return stages;
}

const INDEX_STAGES = new Set(['IXSCAN', 'COUNT_SCAN', 'IDHACK', 'DISTINCT_SCAN', 'EXPRESS_IXSCAN', 'EXPRESS_IDHACK']);

/** `command` as sent, without what belongs to the session, explained. */
async function planOf(command: Record<string, unknown>): Promise<{ query: string; stages: string[] }> {
  const {
    lsid: _l,
    $db: _d,
    $clusterTime: _c,
    txnNumber: _t,
    autocommit: _a,
    startTransaction: _s,
    readConcern: _r,
    $readPreference: _p,
    ...plain
  } = command;
  const explain = await connection.db!.command({ explain: plain, verbosity: 'queryPlanner' });
  return { query: JSON.stringify(plain), stages: winningStages(explain) };
}

/**
 * The one kind of query allowed to read every document: counting the posts that match a substring
 * search of their content when nothing else narrows the set (a moderator's `totalCount` under
 * `filter: {search}`). A substring cannot bound an index scan, and the count has to look at every
 * candidate, so a collection scan is its cheapest plan; the page itself still walks its order's index
 * and stops at the page's end.
 */
function countsEveryPostBySubstring(command: Record<string, unknown>): boolean {
  const pipeline = command.pipeline as Record<string, unknown>[] | undefined;
  const match = pipeline?.[0]?.$match as Record<string, unknown> | undefined;
  return (
    command.aggregate === 'posts' &&
    pipeline?.length === 2 &&
    '$group' in pipeline[1]! &&
    match !== undefined &&
    Object.keys(match).join() === '$or' &&
    JSON.stringify(match).includes('"content":{"$regex"')
  );
}

/** Explains every command `work` sends and returns those whose plan is not index-driven and sort-free. */
async function badPlans(work: () => Promise<unknown>): Promise<{ query: string; stages: string[] }[]> {
  const commands = await recorded(work);
  expect(commands.length).toBeGreaterThan(0);
  const bad: { query: string; stages: string[] }[] = [];
  for (const command of commands) {
    const plan = await planOf(command);
    if (plan.stages.includes('SORT')) bad.push(plan);
    else if (countsEveryPostBySubstring(command)) continue;
    else if (plan.stages.includes('COLLSCAN') || !plan.stages.some((s) => INDEX_STAGES.has(s))) bad.push(plan);
  }
  return bad;
}

interface PageResult {
  totalCount: number;
  edges: { cursor: string }[];
  pageInfo: { endCursor: string | null; startCursor: string | null };
}

/** Pages of a connection, each with totalCount: the first, the next (after), and back (before) where the field has `last`/`before`. */
async function walkConnection(
  field: 'users' | 'posts',
  args: string,
  variables: Record<string, unknown>,
  who: Caller,
): Promise<void> {
  const selection = `totalCount edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`;
  const vars = Object.keys(variables).map((name) => `$${name}: ${variableTypes[name]}`);
  const page = async (paging: string, extra: Record<string, unknown>) => {
    const declared = [...vars, ...Object.keys(extra).map((name) => `$${name}: String`)];
    const query = `query${declared.length ? `(${declared.join(', ')})` : ''} { ${field}(${[args, paging].filter(Boolean).join(', ')}) { ${selection} } }`;
    return (await graphql(query, { ...variables, ...extra }, who))[field] as PageResult;
  };
  const first = await page('first: 5', {});
  // Some filters match nothing for some callers (an anonymous caller's drafts): no query is sent then.
  if (!first.pageInfo.endCursor) return;
  const next = await page('first: 5, after: $after', { after: first.pageInfo.endCursor });
  if (field === 'users' && next.pageInfo.startCursor)
    await page('last: 5, before: $before', { before: next.pageInfo.startCursor });
}

const variableTypes: Record<string, string> = {
  filter: 'PostFilter',
  userFilter: 'UserFilter',
  orderBy: 'PostOrderBy',
  userOrder: 'UserOrderBy',
};

describe('GraphQL lists', () => {
  const directions = ['ASC', 'DESC'] as const;

  const userFilters: Record<string, unknown>[] = [
    {},
    { status: 'ACTIVE' },
    { role: 'ADMIN' },
    { status: 'ACTIVE', role: 'USER' },
    { search: 'user 1' },
    { status: 'ACTIVE', search: 'user' },
  ];
  // Ordering by EMAIL is for admins only (it reveals emails); the other orders are walked as a user.
  it.each([
    ['NAME', CALLERS[1]![1]],
    ['EMAIL', caller(userId(5), 'ADMIN')],
    ['CREATED_AT', CALLERS[1]![1]],
    ['UPDATED_AT', CALLERS[1]![1]],
  ] as const)('users ordered by %s, every filter, both directions, forward and back', async (field, who) => {
    const bad = await badPlans(async () => {
      for (const direction of directions) {
        for (const filter of userFilters) {
          await walkConnection(
            'users',
            'filter: $userFilter, orderBy: $userOrder',
            { userFilter: filter, userOrder: { field, direction } },
            who,
          );
        }
      }
    });
    expect(bad).toEqual([]);
  });

  const postFilters: Record<string, unknown>[] = [
    {},
    { status: 'PUBLISHED' },
    { status: 'DRAFT' },
    { authorId: toGlobalId('User', userId(1)) },
    { authorId: toGlobalId('User', userId(5)), status: 'PUBLISHED' },
    { search: 'post 1' },
  ];
  describe.each(CALLERS)('posts, for %s', (_name, who) => {
    it.each(['CREATED_AT', 'TITLE', 'PUBLISHED_AT', 'VIEW_COUNT'])(
      'ordered by %s, every filter, both directions, forward and back',
      async (field) => {
        const bad = await badPlans(async () => {
          for (const direction of directions) {
            for (const filter of postFilters) {
              await walkConnection(
                'posts',
                'filter: $filter, orderBy: $orderBy',
                { filter, orderBy: { field, direction } },
                who,
              );
            }
          }
        });
        expect(bad).toEqual([]);
      },
    );

    it('the default order, a user’s posts (by status) and comments, a post’s comments and their replies, loaders', async () => {
      const bad = await badPlans(async () => {
        await walkConnection('posts', '', {}, who);
        const author = toGlobalId('User', userId(1));
        for (const status of [null, 'PUBLISHED', 'DRAFT']) {
          await graphql(
            `
              query ($id: ID!, $status: PostStatus) {
                user(id: $id) {
                  posts(first: 3, status: $status) {
                    totalCount
                    edges {
                      cursor
                      node {
                        title
                        author {
                          name
                        }
                        comments {
                          totalCount
                          edges {
                            node {
                              id
                              replies {
                                totalCount
                                edges {
                                  node {
                                    id
                                  }
                                }
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                  comments(first: 3) {
                    totalCount
                    edges {
                      node {
                        id
                        post {
                          title
                        }
                        parent {
                          id
                        }
                      }
                    }
                  }
                }
              }
            `,
            { id: author, status },
            who,
          );
        }
        await graphql(
          `
            query ($id: ID!) {
              post(id: $id) {
                comments(first: 5) {
                  totalCount
                  edges {
                    cursor
                    node {
                      replies(first: 2) {
                        totalCount
                        edges {
                          node {
                            id
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          `,
          { id: toGlobalId('Post', 1) },
          who,
        );
        await graphql(
          `
            query ($id: ID!, $c: ID!) {
              node(id: $id) {
                id
              }
              comment(id: $c) {
                id
              }
            }
          `,
          { id: toGlobalId('Post', 5), c: toGlobalId('Comment', 5) },
          who,
        );
      });
      expect(bad).toEqual([]);
    });

    it('search, every type', async () => {
      const bad = await badPlans(async () => {
        for (const type of ['ALL', 'USER', 'POST', 'COMMENT']) {
          await graphql(
            `
              query ($q: String!, $t: SearchType) {
                search(query: $q, type: $t, limit: 20) {
                  __typename
                }
              }
            `,
            { q: 'typescript user 1', t: type },
            who,
          );
        }
      });
      expect(bad).toEqual([]);
    });
  });
});

describe('REST lists', () => {
  it('published posts: every filter, first and later pages', async () => {
    const bad = await badPlans(async () => {
      for (const filter of [{}, { category: 'news' }, { tag: 'typescript' }, { category: 'news', tag: 'databases' }]) {
        for (const page of [1, 3]) await listPublished(deps(), { page, limit: 10, ...filter });
      }
    });
    expect(bad).toEqual([]);
  });

  it('users, first and later pages', async () => {
    const bad = await badPlans(async () => {
      for (const page of [1, 4]) await listUsers(deps(), { page, limit: 10 });
    });
    expect(bad).toEqual([]);
  });
});

it('the outbox relay reads its records in index order, from one snapshot', async () => {
  await models.outbox.insertMany(
    Array.from({ length: 20 }, (_, i) => ({
      _id: `e${i}`,
      entityType: 'posts',
      entityId: String(i % 4),
      rev: i + 1,
      event: { type: 'post.updated' },
    })),
  );
  const producer = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    sendBatch: async () => [],
  } as unknown as Producer;
  const relay = createRelay({
    models,
    createProducer: () => producer,
    logger: { warn: () => undefined } as unknown as Logger,
    topicPrefix: prefix,
    watch: false,
  });
  try {
    // Only the reads: the fake producer sends nothing; the records are removed afterwards.
    const commands = await recorded(() => relay.runOnce());
    const read = commands.filter((c) => c.find === 'outbox');
    expect(read).toHaveLength(1);
    // One snapshot: if an entity's revision r+1 is in it, so is r (outbox/relay.ts).
    expect(read[0]!.readConcern).toEqual({ level: 'snapshot' });
    const plan = await planOf(read[0]!);
    expect(plan.stages).toContain('IXSCAN');
    expect(plan.stages).not.toContain('SORT');
    expect(plan.stages).not.toContain('COLLSCAN');
  } finally {
    await relay.stop();
  }
});
