import { toGlobalId } from '@platform/graphql-schema';
import { freePort } from '@platform/testing';
import { collectEvents, type EventCollector } from './event-collector';
import { api, eventually, gql, seedUser, startContent, stopContent, type RunningContent } from './helpers';

describe('content events on Kafka', () => {
  let app: RunningContent | undefined;
  let collector: EventCollector | undefined;

  afterEach(async () => {
    await collector?.stop();
    await stopContent(app);
    collector = undefined;
    app = undefined;
  });

  it('a scripted sequence of writes produces exactly the expected events, in a CloudEvents envelope', async () => {
    app = await startContent();
    collector = await collectEvents(app.topicPrefix);
    const user = await seedUser(app, { name: 'Evented' });
    const renamed = await api(app, 'PUT', '/api/v1/users', { caller: user, body: { name: 'Evented Renamed' } });
    expect(renamed.status).toBe(200);
    const created = await api(app, 'POST', '/api/v1/posts', { caller: user, body: { title: 'Event me', content: 'c', tags: ['k'] } });
    const id = created.json.id as number;
    await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: user, body: { published: true } });
    const comment = await gql(app, `mutation($i: CreateCommentInput!) { createComment(input: $i) { id } }`, { i: { content: 'Nice', postId: String(id) } }, user);
    const commentId = (comment.data!.createComment as { id: string }).id;
    // Failed writes publish nothing.
    expect((await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: user, body: { title: '' } })).status).toBe(400);
    expect((await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: { id: 'someone-else', role: 'USER' }, body: { title: 'x' } })).status).toBe(403);
    expect((await api(app, 'DELETE', `/api/v1/posts/${id}`, { caller: user })).status).toBe(204);

    const events = await eventually(async () => (collector!.events.length >= 6 ? collector!.events : undefined), 30_000, '6 events');
    // Give a wrong extra event a chance to show up before asserting "exactly".
    await new Promise((r) => setTimeout(r, 1500));
    const postId = toGlobalId('Post', id);
    const userId = toGlobalId('User', user.id);
    expect(collector.events.map((e) => `${e.type} ${e.subject}`).sort()).toEqual(
      [`comment.created ${commentId}`, `comment.deleted ${commentId}`, `post.created ${postId}`, `post.deleted ${postId}`, `post.updated ${postId}`, `user.updated ${userId}`],
    );
    const commentEvent = events.find((e) => e.type === 'comment.created')!;
    expect(commentEvent.data).toMatchObject({ id: commentId, content: 'Nice', parentId: null, author: { id: userId }, post: { id: postId, title: 'Event me' } });
    const postEvents = events.filter((e) => e.subject === postId).map((e) => e.type);
    expect(postEvents).toEqual(['post.created', 'post.updated', 'post.deleted']);
    const first = events.find((e) => e.type === 'post.created')!;
    expect(first).toMatchObject({
      specversion: '1.0',
      source: '/content',
      datacontenttype: 'application/json',
      dataschema: 'urn:platform:content-events:v1',
      subject: postId,
      data: { id: postId, localId: id, title: 'Event me', status: 'DRAFT', tags: ['k'], author: { id: userId, name: 'Evented Renamed' } },
    });
    const updated = events.find((e) => e.type === 'post.updated')!;
    expect(updated.data).toMatchObject({ status: 'PUBLISHED', published: true, publishedAt: expect.any(String) });
    expect(new Set(collector.events.map((e) => e.id)).size).toBe(collector.events.length);
    expect(collector.keys.every((k, i) => k === collector!.events[i]!.subject)).toBe(true);
    // The soft-deleted post is removed once its deletion event is out.
    await eventually(async () => ((await app!.mongo.collection('posts').countDocuments({ _id: id as never })) === 0 ? true : undefined), 10_000, 'post removal');
    expect(await app.mongo.collection('outbox').countDocuments()).toBe(0);
  }, 90_000);

  it('with Kafka unreachable, writes succeed; when a broker answers, all 50 events arrive in per-entity order', async () => {
    const deadPort = await freePort();
    app = await startContent({ KAFKA_BROKERS: `127.0.0.1:${deadPort}` });
    const user = await seedUser(app, { name: 'Offline Writer' });
    const ids: number[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await api(app, 'POST', '/api/v1/posts', { caller: user, body: { title: `Offline ${i}`, content: 'c' } });
      expect(res.status).toBe(201);
      ids.push(res.json.id as number);
    }
    for (const id of ids.slice(0, 10)) {
      expect((await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: user, body: { published: true } })).status).toBe(200);
    }
    expect(await app.mongo.collection('outbox').countDocuments()).toBe(60);
    const shared = { db: app.db, topicPrefix: app.topicPrefix, redisPrefix: app.redisPrefix };
    await stopContent(app, false);
    app = undefined;

    collector = await collectEvents(shared.topicPrefix);
    app = await startContent({}, shared);
    const events = await eventually(async () => (collector!.events.length >= 60 ? collector!.events : undefined), 45_000, '60 events');
    const created = events.filter((e) => e.type === 'post.created').map((e) => e.data.localId as number);
    expect(created.sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    for (const id of ids.slice(0, 10)) {
      const subject = toGlobalId('Post', id);
      expect(events.filter((e) => e.subject === subject).map((e) => e.type)).toEqual(['post.created', 'post.updated']);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(60);
  }, 150_000);

  it('two replicas relaying the same outbox publish each event once', async () => {
    app = await startContent();
    collector = await collectEvents(app.topicPrefix);
    const second = await startContent({}, { db: app.db, topicPrefix: app.topicPrefix, redisPrefix: app.redisPrefix });
    try {
      const user = await seedUser(app, { name: 'Replicated' });
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          api(i % 2 === 0 ? app! : second, 'POST', '/api/v1/posts', { caller: user, body: { title: `Replica ${i}`, content: 'c' } }),
        ),
      );
      await eventually(async () => (collector!.events.length >= 30 ? true : undefined), 30_000, '30 events');
      await eventually(async () => ((await app!.mongo.collection('outbox').countDocuments()) === 0 ? true : undefined), 10_000, 'empty outbox');
      await new Promise((r) => setTimeout(r, 1500));
      expect(collector.events).toHaveLength(30);
      expect(new Set(collector.events.map((e) => e.id)).size).toBe(30);
    } finally {
      await stopContent(second, false);
    }
  }, 120_000);
});
