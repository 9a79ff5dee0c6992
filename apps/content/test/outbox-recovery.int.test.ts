import mongoose, { type Connection } from 'mongoose';
import { Redis } from 'ioredis';
import type { Consumer, Producer } from 'kafkajs';
import { contentTopics, parseContentEvent, type ContentEvent } from '@platform/events';
import { toGlobalId } from '@platform/graphql-schema';
import type { Logger } from '@platform/logger';
import { createKafka } from '@platform/stores';
import { stackEnv, uniqueName } from '@platform/testing';
import type { ContentDeps } from '../src/domain/deps';
import { callerFromIdentity } from '../src/identity/caller';
import { createModels, syncIndexes, type Models } from '../src/models';
import { EVENT_IDS_KEPT } from '../src/models/outbox-fields';
import type { OutboxModel } from '../src/models/outbox-fields';
import { createRelay, type Relay } from '../src/outbox/relay';
import { createPost, deletePost, updatePost } from '../src/posts/post-writes';
import { updateProfile } from '../src/users/profiles';

/**
 * Recovery of `pending` outbox records (models/outbox-fields.ts): a writer that died between the
 * steps of the protocol leaves a pending record; once it is older than the pending timeout the
 * relay looks at the entity. Id in `eventIds` → the write happened → publish (in order before the
 * entity's later events); otherwise → discard. The writers here are the real write functions,
 * with the crash injected into the outbox model they are handed.
 */
const PENDING_TIMEOUT_MS = 2000;

let connection: Connection;
let redis: Redis;
let models: Models;
let producer: Producer;
let consumer: Consumer;
let relay: Relay;
const received: ContentEvent[] = [];
const warnings: string[] = [];
const topicPrefix = `${uniqueName('outbox')}.`;
const redisPrefix = `${uniqueName('outbox')}:`;
const kafka = createKafka('outbox-recovery-test', stackEnv().KAFKA_BROKERS.split(','));
const topics = Object.values(contentTopics(topicPrefix));

const crash = () => Promise.reject(new Error('writer crashed'));

/** The outbox as a writer sees it, with some of its calls failing (the writer died there). */
function crashingOutbox(failing: ('updateOne' | 'deleteOne')[]): OutboxModel {
  return new Proxy(models.outbox, {
    get(target, prop, receiver) {
      if (failing.includes(prop as 'updateOne')) return crash;
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function depsWith(overrides: Partial<Models>): ContentDeps {
  return { models: { ...models, ...overrides }, auth: {} as ContentDeps['auth'], invalidate: async () => undefined };
}

const caller = (id: string) => callerFromIdentity({ sub: id, roles: ['USER'], scope: 'content:write', method: 'bearer_jwt' }, 'test');
const fields = (title: string) => ({ title, content: 'c', excerpt: null, status: 'DRAFT' as const, category: null, tags: [] });

beforeAll(async () => {
  connection = mongoose.createConnection(stackEnv().MONGO_URL, { dbName: uniqueName('outbox') });
  await connection.asPromise();
  models = createModels(connection);
  await syncIndexes(models);
  redis = new Redis(stackEnv().REDIS_URL);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: 3 })), waitForLeaders: true });
  await admin.disconnect();
  consumer = kafka.consumer({ groupId: uniqueName('outbox-recovery') });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.run({ eachMessage: async ({ message }) => void received.push(parseContentEvent(message.value)) });
  await Promise.race([joined, new Promise((r) => setTimeout(r, 15_000))]);
  producer = kafka.producer({ maxInFlightRequests: 1, allowAutoTopicCreation: true });
  const logger = { warn: (_: unknown, msg: string) => void warnings.push(msg) } as unknown as Logger;
  relay = createRelay({ models, redis, redisPrefix, producer, logger, topicPrefix, pendingTimeoutMs: PENDING_TIMEOUT_MS });
}, 60_000);

afterAll(async () => {
  await relay?.stop();
  await consumer?.disconnect();
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
  await connection?.dropDatabase();
  await connection?.close();
  const keys = await redis.keys(`${redisPrefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

async function waitFor(count: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (received.length < count) {
    if (Date.now() > deadline) throw new Error(`${count} events not received (got ${received.length})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // Room for a wrong extra event to show up before asserting "exactly".
  await new Promise((r) => setTimeout(r, 1000));
}

it('publishes a stale pending record whose write happened, discards one whose write did not', async () => {
  const authorId = 'outboxauthor0000000000001';
  const now = new Date();
  await models.users.create({ _id: authorId, name: 'Outbox Author', nameLower: 'outbox author', email: 'oa@example.org', createdAt: now, updatedAtSort: now, rev: 1 });

  // 1. Written, then the writer died before marking its record ready (step 3).
  const { post: committed } = await createPost(depsWith({ outbox: crashingOutbox(['updateOne']) }), caller(authorId), fields('Committed'));
  // …and a later, normal write of the same post: its ready record must wait behind the pending one.
  await updatePost(depsWith({}), caller(authorId), committed._id, { title: 'Committed, edited' });
  // The same for a user (string ids take the other branch of the relay's lookup).
  await updateProfile(depsWith({ outbox: crashingOutbox(['updateOne']) }), caller(authorId), authorId, { name: 'Outbox Author Renamed' });
  // 2. The entity write failed and the writer died before removing its record (steps 2 and 3).
  const failingPosts = new Proxy(models.posts, {
    get: (target, prop, receiver) => (prop === 'create' ? crash : (Reflect.get(target, prop, receiver) as unknown)),
  });
  await expect(createPost(depsWith({ outbox: crashingOutbox(['deleteOne']), posts: failingPosts }), caller(authorId), fields('Never written'))).rejects.toThrow('writer crashed');
  // 3. An unrelated normal write.
  const { post: unrelated } = await createPost(depsWith({}), caller(authorId), fields('Unrelated'));

  const outbox = await models.outbox.find({}).sort({ at: 1, n: 1 }).lean();
  expect(outbox.map((r) => [r.event.type, r.state])).toEqual([
    ['post.created', 'pending'],
    ['post.updated', 'ready'],
    ['user.updated', 'pending'],
    ['post.created', 'pending'],
    ['post.created', 'ready'],
  ]);
  const neverWritten = outbox[3]!;
  expect(await models.posts.exists({ _id: Number(neverWritten.entityId) })).toBeNull();

  // While the pending records are young, their writers may still be at work: only the unrelated
  // event goes out, and the committed post's later update waits for its pending creation.
  expect(await relay.runOnce()).toBe(1);
  await waitFor(1);
  expect(received.map((e) => `${e.type} ${e.subject}`)).toEqual([`post.created ${toGlobalId('Post', unrelated._id)}`]);
  expect(await models.outbox.countDocuments()).toBe(4);

  // Past the timeout the relay resolves them from the entities.
  const oldest = new Date(outbox[0]!.at).getTime();
  await new Promise((r) => setTimeout(r, Math.max(0, oldest + PENDING_TIMEOUT_MS + 100 - Date.now())));
  expect(await relay.runOnce()).toBe(3);
  await waitFor(4);
  const committedId = toGlobalId('Post', committed._id);
  expect(received.map((e) => `${e.type} ${e.subject}`).sort()).toEqual(
    [
      `post.created ${toGlobalId('Post', unrelated._id)}`,
      `post.created ${committedId}`,
      `post.updated ${committedId}`,
      `user.updated ${toGlobalId('User', authorId)}`,
    ].sort(),
  );
  expect(received.filter((e) => e.subject === committedId).map((e) => [e.type, (e.data as { title: string }).title])).toEqual([
    ['post.created', 'Committed'],
    ['post.updated', 'Committed, edited'],
  ]);
  expect(received.some((e) => e.id === neverWritten._id)).toBe(false);
  expect(warnings).toEqual(['discarding the event of a write that did not happen']);
  expect(await models.outbox.countDocuments()).toBe(0);
  expect(await relay.runOnce()).toBe(0);
}, 60_000);

/** The events received for one entity, waited for until there are `count` (then a moment for extras). */
async function eventsOf(subject: string, count: number): Promise<ContentEvent[]> {
  const deadline = Date.now() + 20_000;
  const of = () => received.filter((e) => e.subject === subject);
  while (of().length < count) {
    if (Date.now() > deadline) throw new Error(`${count} events of ${subject} not received (got ${of().length})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 1000));
  return of();
}

const titles = (events: ContentEvent[]) => events.map((e) => `${e.type} ${(e.data as { title: string }).title}`);
const edits = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `post.updated Edit ${from + i}`);

async function pastTimeout(eventId: string): Promise<void> {
  const record = await models.outbox.findById(eventId).lean();
  const at = new Date(record!.at).getTime();
  await new Promise((r) => setTimeout(r, Math.max(0, at + PENDING_TIMEOUT_MS + 100 - Date.now())));
}

async function seedAuthor(id: string): Promise<void> {
  const now = new Date();
  await models.users.create({ _id: id, name: 'Outbox Author', nameLower: 'outbox author', email: `${id}@example.org`, createdAt: now, updatedAtSort: now, rev: 1 });
}

// More writes than `eventIds` keeps: the first record's id leaves the entity while it is pending.
const MANY = EVENT_IDS_KEPT + 5;

it('publishes a pending record however many later writes drop its id from the entity, and still discards a failed write', async () => {
  warnings.length = 0;
  const authorId = 'outboxauthor0000000000002';
  await seedAuthor(authorId);
  // The creation is written, its writer dies before step 3.
  const { post } = await createPost(depsWith({ outbox: crashingOutbox(['updateOne']) }), caller(authorId), fields('Created'));
  // An update that fails (the entity write throws), its writer dies before removing its record.
  const failingPosts = new Proxy(models.posts, {
    get: (target, prop, receiver) => (prop === 'updateOne' ? crash : (Reflect.get(target, prop, receiver) as unknown)),
  });
  await expect(
    updatePost(depsWith({ outbox: crashingOutbox(['deleteOne']), posts: failingPosts }), caller(authorId), post._id, { title: 'Never written' }),
  ).rejects.toThrow('writer crashed');
  for (let i = 1; i <= MANY; i++) await updatePost(depsWith({}), caller(authorId), post._id, { title: `Edit ${i}` });

  const stored = await models.posts.findById(post._id).lean();
  const [creation, failed] = await models.outbox.find({}).sort({ at: 1, n: 1 }).limit(2).lean();
  expect([creation!.event.type, failed!.event.type]).toEqual(['post.created', 'post.updated']);
  // Both ids are gone from the entity: only the failed write's record may be discarded.
  expect(stored!.eventIds).toHaveLength(EVENT_IDS_KEPT);
  expect(stored!.eventIds).not.toContain(creation!._id);
  expect(stored!.eventIds).not.toContain(failed!._id);

  await pastTimeout(failed!._id);
  expect(await relay.runOnce()).toBe(MANY + 1);
  const events = await eventsOf(toGlobalId('Post', post._id), MANY + 1);
  expect(titles(events)).toEqual(['post.created Created', ...edits(1, MANY)]);
  expect(events.some((e) => e.id === failed!._id)).toBe(false);
  expect(warnings).toEqual(['discarding the event of a write that did not happen']);
  expect(await models.outbox.countDocuments()).toBe(0);
}, 120_000);

it('does not discard a record whose id leaves the entity while the relay resolves it', async () => {
  warnings.length = 0;
  const authorId = 'outboxauthor0000000000003';
  await seedAuthor(authorId);
  const { post } = await createPost(depsWith({ outbox: crashingOutbox(['updateOne']) }), caller(authorId), fields('Created'));
  const [creation] = await models.outbox.find({ entityId: String(post._id) }).lean();
  await pastTimeout(creation!._id);

  // A relay whose look-up of the entity comes after enough writes to drop the creation's id.
  const posts = new Proxy(models.posts, {
    get(target, prop, receiver) {
      if (prop !== 'exists') return Reflect.get(target, prop, receiver) as unknown;
      return async (filter: Record<string, unknown>) => {
        for (let i = 1; i <= EVENT_IDS_KEPT; i++) await updatePost(depsWith({}), caller(authorId), post._id, { title: `Edit ${i}` });
        return target.exists(filter);
      };
    },
  });
  const racingProducer = kafka.producer({ maxInFlightRequests: 1, allowAutoTopicCreation: true });
  const logger = { warn: (_: unknown, msg: string) => void warnings.push(msg) } as unknown as Logger;
  const racing = createRelay({ models: { ...models, posts }, redis, redisPrefix: `${redisPrefix}racing:`, producer: racingProducer, logger, topicPrefix, pendingTimeoutMs: PENDING_TIMEOUT_MS });
  try {
    // The id is gone when it looks, but the record is ready by then: kept, and the entity waits.
    expect(await racing.runOnce()).toBe(0);
  } finally {
    await racing.stop();
  }
  expect(warnings).toEqual([]);
  expect((await models.outbox.findById(creation!._id).lean())?.state).toBe('ready');

  expect(await relay.runOnce()).toBe(EVENT_IDS_KEPT + 1);
  const events = await eventsOf(toGlobalId('Post', post._id), EVENT_IDS_KEPT + 1);
  expect(titles(events)).toEqual(['post.created Created', ...edits(1, EVENT_IDS_KEPT)]);
  expect(await models.outbox.countDocuments()).toBe(0);
}, 120_000);

it('a deletion marks the pending records of its entity ready; the entity is removed once its deletion is out', async () => {
  warnings.length = 0;
  const authorId = 'outboxauthor0000000000004';
  await seedAuthor(authorId);
  const { post } = await createPost(depsWith({ outbox: crashingOutbox(['updateOne']) }), caller(authorId), fields('Created'));
  await updatePost(depsWith({ outbox: crashingOutbox(['updateOne']) }), caller(authorId), post._id, { title: 'Edited' });
  expect((await models.outbox.find({}).lean()).map((r) => r.state)).toEqual(['pending', 'pending']);
  await deletePost(depsWith({}), caller(authorId), post._id);
  expect((await models.outbox.find({}).sort({ at: 1, n: 1 }).lean()).map((r) => [r.event.type, r.state])).toEqual([
    ['post.created', 'ready'],
    ['post.updated', 'ready'],
    ['post.deleted', 'ready'],
  ]);

  // No wait for the pending timeout: the deletion settled the records whose ids go with the entity.
  expect(await relay.runOnce()).toBe(3);
  const events = await eventsOf(toGlobalId('Post', post._id), 3);
  expect(events.map((e) => e.type)).toEqual(['post.created', 'post.updated', 'post.deleted']);
  expect(await models.posts.exists({ _id: post._id })).toBeNull();
  expect(warnings).toEqual([]);
  expect(await models.outbox.countDocuments()).toBe(0);
}, 60_000);

it('a write whose outcome is unknown (applied, then the connection broke) keeps its record and its event is published', async () => {
  warnings.length = 0;
  const authorId = 'outboxauthor0000000000005';
  await seedAuthor(authorId);
  // The server applies the create, but the writer sees a network error instead of the answer.
  const appliedThenLost = new Proxy(models.posts, {
    get: (target, prop, receiver) =>
      prop === 'create'
        ? async (doc: unknown) => {
            await target.create(doc);
            throw new mongoose.mongo.MongoNetworkError('connection reset after the write');
          }
        : (Reflect.get(target, prop, receiver) as unknown),
  });
  await expect(createPost(depsWith({ posts: appliedThenLost }), caller(authorId), fields('Applied, answer lost'))).rejects.toThrow('connection reset');
  // A write the server refused (duplicate _id: a MongoServerError) proves nothing was written: its record goes.
  const existing = await models.posts.findOne({ author: authorId }).lean();
  const refused = new Proxy(models.posts, {
    get: (target, prop, receiver) =>
      prop === 'create' ? (doc: Record<string, unknown>) => target.create({ ...doc, _id: existing!._id }) : (Reflect.get(target, prop, receiver) as unknown),
  });
  await expect(createPost(depsWith({ posts: refused }), caller(authorId), fields('Refused'))).rejects.toThrow();
  const records = await models.outbox.find({}).lean();
  expect(records.map((r) => [r.event.type, r.state, r.entityId])).toEqual([['post.created', 'pending', String(existing!._id)]]);

  await pastTimeout(records[0]!._id);
  expect(await relay.runOnce()).toBe(1);
  const events = await eventsOf(toGlobalId('Post', existing!._id), 1);
  expect(titles(events)).toEqual(['post.created Applied, answer lost']);
  expect(await models.outbox.countDocuments()).toBe(0);
}, 60_000);
