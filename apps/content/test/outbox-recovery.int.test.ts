import mongoose, { type Connection } from 'mongoose';
import { Kafka, logLevel, type Consumer, type Producer, type ProducerBatch } from 'kafkajs';
import { contentTopics, createContentEventProducer, parseContentEvent } from '@platform/events';
import { toGlobalId } from '@platform/graphql-schema';
import { createLogger } from '@platform/logger';
import { eventually, freePort, stackEnv, uniqueName } from '@platform/testing';
import { createComment, updateComment, deleteComment } from '../src/comments/comment-writes';
import type { ContentDeps } from '../src/domain/deps';
import { callerFromIdentity } from '../src/identity/caller';
import { createModels, syncIndexes, type Models, type OutboxDoc } from '../src/models';
import { createRelay, type Relay, type RelayOptions } from '../src/outbox/relay';
import { createPost, deletePost, updatePost } from '../src/posts/post-writes';
import { createProfile, deleteProfile, updateProfile } from '../src/users/profiles';

/**
 * The transactional outbox on a real mongod replica set and a real Kafka broker, driven through
 * the service's own write functions and relay:
 * - a write and its event commit together: a write that fails or whose transaction aborts leaves
 *   neither, a committed one always has its record (with the entity's revision);
 * - concurrent writes of one entity serialise, and their events go out in commit order;
 * - Kafka unreachable: records stay until a broker answers, then all go out, in order;
 * - a relay killed after Kafka acknowledged a batch but before deleting its records: the next relay
 *   publishes them again, and a consumer that dedupes by event id sees every event once, in order;
 * - one relay at a time (the MongoDB lease), and wake-ups on commit (local, and through the change
 *   stream) so a relay polling every ten minutes still publishes at once.
 * Every wait is for a condition (an event received, a pass that published); relay passes are run
 * explicitly with runOnce unless the test is about the relay's own scheduling.
 */
let connection: Connection;
let models: Models;
let consumer: Consumer;
const topicPrefix = `${uniqueName('outbox')}.`;
const topics = Object.values(contentTopics(topicPrefix));
const kafka = new Kafka({
  clientId: 'outbox-test',
  brokers: stackEnv().KAFKA_BROKERS.split(','),
  logLevel: logLevel.NOTHING,
});
const logger = createLogger('outbox-test', 'silent');

interface Received {
  id: string;
  type: string;
  subject: string;
  title?: string;
  content?: string;
  name?: string;
}
/** Every message the consumer got, duplicates included, in arrival order (per partition: Kafka's order). */
const received: Received[] = [];

// No auth here: deleting a profile asks auth to disable the account, which answers that it does not know it.
const noAuth = {
  updateAccount: async () => ({ ok: false as const, status: 404, body: {} }),
} as unknown as ContentDeps['auth'];
const deps = (overrides: Partial<ContentDeps> = {}): ContentDeps => ({
  models,
  auth: noAuth,
  invalidate: async () => undefined,
  ...overrides,
});
const caller = (id: string, role: 'USER' | 'ADMIN' = 'USER') =>
  callerFromIdentity({ sub: id, roles: [role], scope: 'content:write', method: 'bearer_jwt' }, 'test');
const fields = (title: string) => ({
  title,
  content: 'c',
  excerpt: null,
  status: 'DRAFT' as const,
  category: null,
  tags: [],
});
const relays: Relay[] = [];

function relay(options: Partial<RelayOptions> = {}): Relay {
  const created = createRelay({
    models,
    createProducer: () => createContentEventProducer(kafka),
    logger,
    topicPrefix,
    watch: false,
    ...options,
  });
  relays.push(created);
  return created;
}

let authors = 0;
async function seedAuthor(): Promise<string> {
  authors += 1;
  const id = `outboxauthor${String(authors).padStart(12, '0')}`;
  const now = new Date();
  await models.users.create({
    _id: id,
    name: `Author ${authors}`,
    nameLower: `author ${authors}`,
    email: `${id}@example.org`,
    createdAt: now,
    updatedAtSort: now,
    rev: 1,
  });
  return id;
}

/** The outbox records, as the relay will publish them. */
const outbox = () => models.outbox.find({}).sort({ entityType: 1, entityId: 1, rev: 1 }).lean<OutboxDoc[]>();
const of = (subject: string) => received.filter((e) => e.subject === subject);
/** Waits until the consumer has `count` messages of `subject` (duplicates included). */
async function receivedOf(subject: string, count: number): Promise<Received[]> {
  await eventually(() => of(subject).length >= count, 30_000);
  return of(subject);
}
/** First occurrence of each event id: what a consumer that dedupes by id sees. */
const deduped = (events: Received[]) => events.filter((e, i) => events.findIndex((x) => x.id === e.id) === i);
const describe_ = (e: Received) => `${e.type} ${e.title ?? e.content ?? e.name ?? ''}`.trim();

beforeAll(async () => {
  connection = mongoose.createConnection(stackEnv().MONGO_URL, { dbName: uniqueName('outbox') });
  await connection.asPromise();
  models = createModels(connection);
  await syncIndexes(models);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: 3 })), waitForLeaders: true });
  await admin.disconnect();
  // A new group reading from the beginning: whenever it joins, it sees every message.
  consumer = kafka.consumer({ groupId: uniqueName('outbox-test') });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const event = parseContentEvent(message.value);
      const data = event.data as { title?: string; content?: string; name?: string };
      received.push({
        id: event.id,
        type: event.type,
        subject: event.subject,
        title: data.title,
        content: data.content,
        name: data.name,
      });
    },
  });
}, 60_000);

afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
});

afterAll(async () => {
  await consumer?.disconnect();
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
  await connection?.dropDatabase();
  await connection?.close();
});

it('every kind of write stores its event in its transaction, with the entity’s revision; a profile created again continues its revisions', async () => {
  const admin = await seedAuthor();
  const writer = await seedAuthor();
  const kinds: string[] = [];
  const expectRecord = async (type: string, entityId: string | number, rev: number) => {
    const records = await outbox();
    const record = records.find((r) => r.event.type === type && r.entityId === String(entityId) && r.rev === rev);
    expect(record).toBeDefined();
    kinds.push(type);
  };

  const { post } = await createPost(deps(), caller(writer), fields('Kinds'));
  await expectRecord('post.created', post._id, 1);
  await updatePost(deps(), caller(writer), post._id, { title: 'Kinds, edited' });
  await expectRecord('post.updated', post._id, 2);
  const comment = await createComment(deps(), caller(writer), { content: 'first', postId: post._id, parentId: null });
  await expectRecord('comment.created', comment._id, 1);
  await updateComment(deps(), caller(writer), comment._id, 'first, edited');
  await expectRecord('comment.updated', comment._id, 2);
  const second = await createComment(deps(), caller(writer), {
    content: 'second',
    postId: post._id,
    parentId: comment._id,
  });
  await deleteComment(deps(), caller(writer), second._id);
  await expectRecord('comment.deleted', second._id, 2);
  await deletePost(deps(), caller(writer), post._id);
  await expectRecord('post.deleted', post._id, 3);
  // The post's remaining comment goes with it, announced in the same transaction.
  await expectRecord('comment.deleted', comment._id, 3);
  expect(await models.posts.exists({ _id: post._id })).toBeNull();
  expect(await models.comments.countDocuments({ post: post._id })).toBe(0);

  const account = { id: 'outboxprofile000000000001', name: 'Profile', email: 'profile@example.org', roles: ['USER'] };
  await createProfile(deps(), account);
  await expectRecord('user.created', account.id, 1);
  await updateProfile(deps(), caller(account.id), account.id, { name: 'Profile Renamed' });
  await expectRecord('user.updated', account.id, 2);
  await deleteProfile(deps(), caller(admin, 'ADMIN'), account.id);
  await expectRecord('user.deleted', account.id, 3);
  expect(await models.users.exists({ _id: account.id })).toBeNull();
  // The account signs in again: its profile is created anew, after the records still in the outbox.
  await createProfile(deps(), account);
  await expectRecord('user.created', account.id, 4);
  expect((await models.users.findById(account.id).lean())?.rev).toBe(4);
  expect(new Set(kinds)).toEqual(
    new Set([
      'post.created',
      'post.updated',
      'post.deleted',
      'comment.created',
      'comment.updated',
      'comment.deleted',
      'user.created',
      'user.updated',
      'user.deleted',
    ]),
  );

  const records = await outbox();
  expect(await relay().runOnce()).toBe(records.length);
  const userEvents = await receivedOf(toGlobalId('User', account.id), 4);
  expect(userEvents.map(describe_)).toEqual([
    'user.created Profile',
    'user.updated Profile Renamed',
    'user.deleted Profile Renamed',
    'user.created Profile',
  ]);
  const postEvents = await receivedOf(toGlobalId('Post', post._id), 3);
  expect(postEvents.map(describe_)).toEqual([
    'post.created Kinds',
    'post.updated Kinds, edited',
    'post.deleted Kinds, edited',
  ]);
  const commentEvents = await receivedOf(toGlobalId('Comment', comment._id), 3);
  expect(commentEvents.map(describe_)).toEqual([
    'comment.created first',
    'comment.updated first, edited',
    'comment.deleted first, edited',
  ]);
  expect(await models.outbox.countDocuments()).toBe(0);
});

it('a write that fails or whose transaction aborts leaves neither the change nor an event', async () => {
  const writer = await seedAuthor();
  const { post } = await createPost(deps(), caller(writer), fields('Survivor'));
  await createComment(deps(), caller(writer), { content: 'kept', postId: post._id, parentId: null });
  await createComment(deps(), caller(writer), { content: 'kept too', postId: post._id, parentId: null });
  const before = await outbox();
  const stored = await models.posts.findById(post._id).lean();

  // A validation error: mongoose refuses the document before anything is sent.
  await expect(createPost(deps(), caller(writer), fields(''))).rejects.toThrow(mongoose.Error.ValidationError);
  // The transaction aborts after the entity write: storing the event fails.
  // (Records are written through the driver's collection: models/insert-built.ts.)
  const failingCollection = new Proxy(models.outbox.collection, {
    get: (target, prop, receiver) =>
      prop === 'insertMany'
        ? () => Promise.reject(new Error('outbox insert failed'))
        : (Reflect.get(target, prop, receiver) as unknown),
  });
  const failingOutbox = new Proxy(models.outbox, {
    get: (target, prop, receiver) =>
      prop === 'collection' ? failingCollection : (Reflect.get(target, prop, receiver) as unknown),
  });
  const abortingDeps = deps({ models: { ...models, outbox: failingOutbox } });
  await expect(createPost(abortingDeps, caller(writer), fields('Never created'))).rejects.toThrow(
    'outbox insert failed',
  );
  await expect(updatePost(abortingDeps, caller(writer), post._id, { title: 'Never edited' })).rejects.toThrow(
    'outbox insert failed',
  );
  await expect(
    createComment(abortingDeps, caller(writer), { content: 'never', postId: post._id, parentId: null }),
  ).rejects.toThrow('outbox insert failed');
  // A post deletion that fails half-way, after the post's own delete: its comments' delete throws.
  const failingComments = new Proxy(models.comments, {
    get: (target, prop, receiver) =>
      prop === 'deleteMany'
        ? () => Promise.reject(new Error('comments delete failed'))
        : (Reflect.get(target, prop, receiver) as unknown),
  });
  await expect(
    deletePost(deps({ models: { ...models, comments: failingComments } }), caller(writer), post._id),
  ).rejects.toThrow('comments delete failed');

  // Nothing of them was written: the post as it was (its deletion rolled back with its comments),
  // no new post or comment, and no record.
  expect(await models.posts.findById(post._id).lean()).toEqual(stored);
  expect(await models.comments.countDocuments({ post: post._id })).toBe(2);
  expect(await models.posts.countDocuments({ title: { $in: ['', 'Never created', 'Never edited'] } })).toBe(0);
  expect(await models.comments.countDocuments({ content: 'never' })).toBe(0);
  expect(await outbox()).toEqual(before);

  // So the relay publishes exactly the three committed writes, and the outbox is empty after.
  expect(await relay().runOnce()).toBe(3);
  expect((await receivedOf(toGlobalId('Post', post._id), 1)).map(describe_)).toEqual(['post.created Survivor']);
  expect(await models.outbox.countDocuments()).toBe(0);
});

it('concurrent writes of one entity all commit, one after the other: revisions follow commit order and the events go out in it', async () => {
  const writer = await seedAuthor();
  const { post } = await createPost(deps(), caller(writer), fields('Contended'));
  const EDITS = 12;
  // Each write reads the post in its transaction; a concurrent commit makes it conflict and run again.
  await Promise.all(
    Array.from({ length: EDITS }, (_, i) => updatePost(deps(), caller(writer), post._id, { title: `Edit ${i}` })),
  );

  const records = (await outbox()).filter((r) => r.entityId === String(post._id));
  expect(records.map((r) => r.rev)).toEqual(Array.from({ length: EDITS + 1 }, (_, i) => i + 1));
  // The last revision is the stored state, and each write saw the one before it (time never goes back).
  const stored = await models.posts.findById(post._id).lean();
  expect(stored?.rev).toBe(EDITS + 1);
  expect((records.at(-1)!.event.data as { title: string }).title).toBe(stored?.title);
  const times = records.slice(1).map((r) => Date.parse((r.event.data as { updatedAt: string }).updatedAt));
  expect(times).toEqual([...times].sort((a, b) => a - b));
  expect(new Set(records.slice(1).map((r) => (r.event.data as { title: string }).title)).size).toBe(EDITS);

  expect(await relay().runOnce()).toBe(EDITS + 1);
  const events = await receivedOf(toGlobalId('Post', post._id), EDITS + 1);
  expect(events.map((e) => e.id)).toEqual(records.map((r) => r._id));
  expect(await models.outbox.countDocuments()).toBe(0);
}, 60_000);

it('Kafka unreachable: records stay, and every one is published in per-entity order once a broker answers', async () => {
  const writer = await seedAuthor();
  const deadKafka = new Kafka({
    clientId: 'outbox-dead',
    brokers: [`127.0.0.1:${await freePort()}`],
    connectionTimeout: 300,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
  const offline = relay({ createProducer: () => createContentEventProducer(deadKafka) });
  const { post } = await createPost(deps(), caller(writer), fields('Offline 0'));
  await expect(offline.runOnce()).rejects.toThrow();
  // Writes go on while the broker is away.
  for (let i = 1; i <= 5; i++) await updatePost(deps(), caller(writer), post._id, { title: `Offline ${i}` });
  await expect(offline.runOnce()).rejects.toThrow();
  expect(await models.outbox.countDocuments()).toBe(6);
  expect(of(toGlobalId('Post', post._id))).toEqual([]);

  // The process goes away (its lease with it); a relay that reaches a broker publishes everything.
  await offline.stop();
  expect(await relay().runOnce()).toBe(6);
  const events = await receivedOf(toGlobalId('Post', post._id), 6);
  expect(events.map(describe_)).toEqual([
    'post.created Offline 0',
    ...[1, 2, 3, 4, 5].map((i) => `post.updated Offline ${i}`),
  ]);
  expect(await models.outbox.countDocuments()).toBe(0);
});

it('a pass whose publish failed is published again on a new idempotent producer session, never on the failed one', async () => {
  const writer = await seedAuthor();
  const { post } = await createPost(deps(), caller(writer), fields('Session 0'));
  await updatePost(deps(), caller(writer), post._id, { title: 'Session 1' });
  // The first session's send fails (as when the broker's answer is lost: kafkajs then takes the batch's
  // sequence numbers back, and the broker, which may have written it, refuses that session's next batch).
  const sessions: { producer: Producer; disconnected: boolean }[] = [];
  const createProducer = (): Producer => {
    const real = createContentEventProducer(kafka);
    const session = { producer: real, disconnected: false };
    const failing = sessions.length === 0;
    session.producer = {
      ...real,
      connect: () => real.connect(),
      disconnect: async () => {
        session.disconnected = true;
        await real.disconnect();
      },
      sendBatch: (batch: ProducerBatch) => (failing ? Promise.reject(new Error('answer lost')) : real.sendBatch(batch)),
    } as Producer;
    sessions.push(session);
    return session.producer;
  };
  const retried = relay({ createProducer });
  await expect(retried.runOnce()).rejects.toThrow('answer lost');
  await eventually(() => sessions[0]!.disconnected, 10_000);
  expect(await retried.runOnce()).toBeGreaterThanOrEqual(2);
  expect(sessions).toHaveLength(2);
  const events = await receivedOf(toGlobalId('Post', post._id), 2);
  expect(deduped(events).map(describe_)).toEqual(['post.created Session 0', 'post.updated Session 1']);
}, 60_000);

it('a relay killed after Kafka acknowledged a batch but before deleting its records: the batch is published again, and deduplication by id gives every event once, in order', async () => {
  const writer = await seedAuthor();
  const posts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const { post } = await createPost(deps(), caller(writer), fields(`Batch ${i}`));
    await updatePost(deps(), caller(writer), post._id, { title: `Batch ${i} v2` });
    await updatePost(deps(), caller(writer), post._id, { title: `Batch ${i} v3` });
    posts.push(post._id);
  }
  // The relay's process dies between Kafka's acknowledgement and the delete (and never releases its lease).
  const killedOutbox = new Proxy(models.outbox, {
    get: (target, prop, receiver) =>
      prop === 'deleteMany'
        ? () => Promise.reject(new Error('relay killed'))
        : (Reflect.get(target, prop, receiver) as unknown),
  });
  const killed = relay({ models: { ...models, outbox: killedOutbox }, leaseTtlMs: 1000 });
  await expect(killed.runOnce()).rejects.toThrow('relay killed');
  for (const id of posts) await receivedOf(toGlobalId('Post', id), 3);
  expect(await models.outbox.countDocuments()).toBe(9);

  // The next relay takes over once the dead one's lease ran out, and publishes the batch again.
  const next = relay();
  let published = 0;
  await eventually(async () => (published = await next.runOnce()) > 0, 30_000);
  expect(published).toBe(9);
  for (const [i, id] of posts.entries()) {
    const raw = await receivedOf(toGlobalId('Post', id), 6);
    const expected = [`post.created Batch ${i}`, `post.updated Batch ${i} v2`, `post.updated Batch ${i} v3`];
    // Each event arrived twice, each time in order; a consumer deduping by id sees it once, in order.
    expect(raw.map(describe_)).toEqual([...expected, ...expected]);
    expect(deduped(raw).map(describe_)).toEqual(expected);
  }
  expect(await models.outbox.countDocuments()).toBe(0);
});

it('one relay at a time: while one holds the lease another publishes nothing; it takes over when the holder stops', async () => {
  const writer = await seedAuthor();
  const holder = relay({ leaseTtlMs: 60_000 });
  const other = relay({ leaseTtlMs: 60_000 });
  expect(await holder.runOnce()).toBe(0);
  const { post } = await createPost(deps(), caller(writer), fields('Leased'));
  expect(await other.runOnce()).toBe(0);
  expect(await models.outbox.countDocuments()).toBe(1);
  await holder.stop();
  expect(await other.runOnce()).toBe(1);
  expect((await receivedOf(toGlobalId('Post', post._id), 1)).map(describe_)).toEqual(['post.created Leased']);
});

describe('wake-ups: a relay that polls every ten minutes publishes each commit at once', () => {
  const TEN_MINUTES = 600_000;

  it('committed by another process: seen through the change stream on the outbox', async () => {
    const writer = await seedAuthor();
    const watching = relay({ pollMs: TEN_MINUTES, watch: true });
    // Resolves once the first pass ran and the change stream is open: from here on, within the ten
    // minutes, only a wake-up starts a pass (the stream's first answer is one, to catch up).
    await watching.start();
    for (let i = 0; i < 3; i++) {
      const { post } = await createPost(deps(), caller(writer), fields(`Watched ${i}`));
      expect((await receivedOf(toGlobalId('Post', post._id), 1)).map(describe_)).toEqual([`post.created Watched ${i}`]);
    }
    await eventually(async () => (await models.outbox.countDocuments()) === 0, 30_000);
  });

  it('committed by this process: told by the write itself', async () => {
    const writer = await seedAuthor();
    const local = relay({ pollMs: TEN_MINUTES, watch: false });
    await local.start();
    const writing = deps({ outboxCommitted: () => local.wake() });
    for (let i = 0; i < 3; i++) {
      const { post } = await createPost(writing, caller(writer), fields(`Woken ${i}`));
      expect((await receivedOf(toGlobalId('Post', post._id), 1)).map(describe_)).toEqual([`post.created Woken ${i}`]);
    }
    await eventually(async () => (await models.outbox.countDocuments()) === 0, 30_000);
  });

  it('with a linger, and a change stream that leaves out its own records: each commit is still published', async () => {
    const writer = await seedAuthor();
    const own = relay({ pollMs: TEN_MINUTES, watch: true, origin: 'this-process', lingerMs: 20 });
    await own.start();
    // This process's writes wake the relay themselves and are left out of its change stream; another
    // process's (a different origin, and none at all: records written before origins) come through it.
    const writers = [
      deps({ outboxCommitted: () => own.wake(), outboxOrigin: 'this-process' }),
      deps({ outboxOrigin: 'another-process' }),
      deps(),
    ];
    for (let i = 0; i < 6; i++) {
      const writing = writers[i % writers.length]!;
      const { post } = await createPost(writing, caller(writer), fields(`Lingered ${i}`));
      expect((await receivedOf(toGlobalId('Post', post._id), 1)).map(describe_)).toEqual([
        `post.created Lingered ${i}`,
      ]);
    }
    await eventually(async () => (await models.outbox.countDocuments()) === 0, 30_000);
  });

  it('records carry the origin of the process that wrote them', async () => {
    const writer = await seedAuthor();
    await createPost(deps({ outboxOrigin: 'origin-a' }), caller(writer), fields('Origin A'));
    await createPost(deps(), caller(writer), fields('No origin'));
    const title = (r: OutboxDoc) => (r.event.data as { title?: string }).title;
    const records = (await outbox()).filter((r) => title(r) === 'Origin A' || title(r) === 'No origin');
    expect(records.map((r) => [title(r), r.origin])).toEqual([
      ['Origin A', 'origin-a'],
      ['No origin', undefined],
    ]);
    // No relay runs here: what this test wrote is not left for the next one's.
    await models.outbox.deleteMany({ _id: { $in: records.map((r) => r._id) } });
  });
});
