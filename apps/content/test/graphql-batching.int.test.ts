import mongoose, { type Connection } from 'mongoose';
import { Redis } from 'ioredis';
import { execute, parse } from 'graphql';
import { stackEnv, uniqueName } from '@platform/testing';
import { createVersionedCache } from '../src/cache/versioned-cache';
import type { ContentDeps } from '../src/domain/deps';
import { buildSchema } from '../src/graphql/graphql-mount';
import { createLoaders } from '../src/graphql/loaders';
import { callerFromIdentity } from '../src/identity/caller';
import { createModels, syncIndexes, type Models } from '../src/models';

/** Counts the database round trips one GraphQL operation costs, on the real MongoDB-compatible server. */
let connection: Connection;
let redis: Redis;
let models: Models;
const commands: string[] = [];
const prefix = `${uniqueName('batching')}:`;

beforeAll(async () => {
  connection = mongoose.createConnection(stackEnv().MONGO_URL, { dbName: uniqueName('batching'), monitorCommands: true });
  await connection.asPromise();
  connection.getClient().on('commandStarted', (event) => commands.push(event.commandName));
  redis = new Redis(stackEnv().REDIS_URL);
  models = createModels(connection);
  await syncIndexes(models);
  const now = Date.now();
  await models.users.insertMany(
    Array.from({ length: 10 }, (_, i) => ({ _id: `u${i}`, name: `User ${i}`, nameLower: `user ${i}`, email: `u${i}@example.org`, createdAt: new Date(now), updatedAtSort: new Date(now) })),
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
    })),
  );
  await models.comments.insertMany(
    Array.from({ length: 120 }, (_, i) => ({ _id: i + 1, content: 'hi', author: `u${i % 10}`, post: (i % 60) + 1, createdAt: new Date(now + i) })),
  );
}, 60_000);

afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

async function roundTrips(first: number): Promise<number> {
  const cache = createVersionedCache(redis, prefix);
  const deps: ContentDeps = { models, auth: {} as ContentDeps['auth'], invalidate: (t) => cache.invalidate(t) };
  // A fresh cache version so @cache on `posts` does not answer from Redis.
  await cache.invalidate('Post');
  const schema = buildSchema({ redis, cache, redisPrefix: prefix });
  const caller = callerFromIdentity({ sub: 'u0', roles: ['USER'], scope: 'content:read', method: 'internal' }, '127.0.0.1');
  commands.length = 0;
  const result = await execute({
    schema,
    document: parse(`query($n: Int) { posts(first: $n) { totalCount edges { node { title author { name } comments { totalCount } } } } }`),
    variableValues: { n: first },
    contextValue: { caller, deps, loaders: createLoaders(deps) },
  });
  expect(result.errors).toBeUndefined();
  const edges = (result.data!.posts as { edges: { node: { author: { name: string }; comments: { totalCount: number } } }[] }).edges;
  expect(edges).toHaveLength(first);
  expect(edges.every((e) => e.node.author.name.startsWith('User') && e.node.comments.totalCount === 2)).toBe(true);
  return commands.filter((c) => ['find', 'aggregate', 'count'].includes(c)).length;
}

it('a page of 50 posts with authors and comment counts costs a constant number of database round trips', async () => {
  const ten = await roundTrips(10);
  const fifty = await roundTrips(50);
  // posts page + totalCount + one batched author lookup + one batched comment-count aggregate.
  expect(fifty).toBe(4);
  expect(ten).toBe(fifty);
});
