import { toGlobalId } from '@platform/graphql-schema';
import { freePort, stackEnv, type RunningApp } from '@platform/testing';
import { collectEvents, type EventCollector } from './event-collector';
import { startKafkaProxy, type KafkaProxy } from './kafka-proxy';
import {
  api,
  eventually,
  gql,
  seedUser,
  startAuthApp,
  startContent,
  stopContent,
  type RunningContent,
} from './helpers';

describe('content events on Kafka', () => {
  let app: RunningContent | undefined;
  let collector: EventCollector | undefined;
  let auth: RunningApp | undefined;
  let proxy: KafkaProxy | undefined;

  afterEach(async () => {
    await collector?.stop();
    await stopContent(app);
    await auth?.stop();
    await proxy?.close();
    proxy = undefined;
    collector = undefined;
    app = undefined;
    auth = undefined;
  });

  it('a scripted sequence of writes produces exactly the expected events, in a CloudEvents envelope', async () => {
    auth = await startAuthApp();
    app = await startContent({ AUTH_URL: auth.url });
    collector = await collectEvents(app.topicPrefix);
    const admin = await seedUser(app, { name: 'Event Admin', role: 'ADMIN' });
    // user.created: a registration through auth creates the profile.
    const email = `evented.${Date.now()}@example.org`;
    const registered = await api(app, 'POST', '/api/v1/auth/register', {
      caller: 'anonymous',
      body: { name: 'Evented', email, password: 'long enough pw' },
    });
    expect(registered.status).toBe(201);
    const user = { id: (registered.json.user as { id: string }).id, role: 'USER' as const };
    // Registering the same email again fails and publishes nothing.
    expect(
      (
        await api(app, 'POST', '/api/v1/auth/register', {
          caller: 'anonymous',
          body: { name: 'Again', email, password: 'long enough pw' },
        })
      ).status,
    ).toBe(400);
    const renamed = await api(app, 'PUT', '/api/v1/users', { caller: user, body: { name: 'Evented Renamed' } });
    expect(renamed.status).toBe(200);
    const created = await api(app, 'POST', '/api/v1/posts', {
      caller: user,
      body: { title: 'Event me', content: 'c', tags: ['k'] },
    });
    const id = created.json.id as number;
    await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: user, body: { published: true } });
    const comment = await gql(
      app,
      `mutation($i: CreateCommentInput!) { createComment(input: $i) { id } }`,
      { i: { content: 'Nice', postId: String(id) } },
      user,
    );
    const commentId = (comment.data!.createComment as { id: string }).id;
    const updateComment = `mutation($id: ID!, $c: String!) { updateComment(id: $id, input: { content: $c }) { id content } }`;
    expect((await gql(app, updateComment, { id: commentId, c: 'Nice, edited' }, user)).data!.updateComment).toEqual({
      id: commentId,
      content: 'Nice, edited',
    });
    // Failed writes publish nothing.
    expect(
      (await gql(app, updateComment, { id: commentId, c: 'not mine' }, { id: 'someone-else', role: 'USER' }))
        .errors![0]!.extensions!.code,
    ).toBe('FORBIDDEN');
    expect((await gql(app, updateComment, { id: commentId, c: '' }, user)).errors![0]!.extensions!.code).toBe(
      'BAD_USER_INPUT',
    );
    expect((await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: user, body: { title: '' } })).status).toBe(400);
    expect(
      (
        await api(app, 'PATCH', `/api/v1/posts/${id}`, {
          caller: { id: 'someone-else', role: 'USER' },
          body: { title: 'x' },
        })
      ).status,
    ).toBe(403);
    // Deleting the post also deletes its comment (comment.deleted), in the same transaction.
    expect((await api(app, 'DELETE', `/api/v1/posts/${id}`, { caller: user })).status).toBe(204);
    expect(await app.mongo.collection('posts').countDocuments({ _id: id as never })).toBe(0);
    expect(await app.mongo.collection('comments').countDocuments({ post: id })).toBe(0);
    const userId = toGlobalId('User', user.id);
    const deleteUser = `mutation($id: ID!) { deleteUser(id: $id) { success } }`;
    expect((await gql(app, deleteUser, { id: userId }, user)).data!.deleteUser).toEqual({ success: false });
    expect((await gql(app, deleteUser, { id: userId }, admin)).data!.deleteUser).toEqual({ success: true });
    expect(await app.mongo.collection('users').countDocuments({ _id: user.id as never })).toBe(0);

    // Once the outbox is empty nothing more is sent: the broker holds exactly what was published.
    await eventually(
      async () => ((await app!.mongo.collection('outbox').countDocuments()) === 0 ? true : undefined),
      30_000,
      'empty outbox',
    );
    expect(await collector.published()).toBe(9);
    const events = await eventually(
      async () => (collector!.events.length >= 9 ? collector!.events : undefined),
      30_000,
      '9 events',
    );
    const postId = toGlobalId('Post', id);
    expect(collector.events.map((e) => `${e.type} ${e.subject}`).sort()).toEqual([
      `comment.created ${commentId}`,
      `comment.deleted ${commentId}`,
      `comment.updated ${commentId}`,
      `post.created ${postId}`,
      `post.deleted ${postId}`,
      `post.updated ${postId}`,
      `user.created ${userId}`,
      `user.deleted ${userId}`,
      `user.updated ${userId}`,
    ]);
    const typesOf = (subject: string) => events.filter((e) => e.subject === subject).map((e) => e.type);
    expect(typesOf(userId)).toEqual(['user.created', 'user.updated', 'user.deleted']);
    expect(typesOf(postId)).toEqual(['post.created', 'post.updated', 'post.deleted']);
    expect(typesOf(commentId)).toEqual(['comment.created', 'comment.updated', 'comment.deleted']);
    const byType = (type: string) => events.find((e) => e.type === type)!;
    expect(byType('user.created').data).toMatchObject({
      id: userId,
      localId: user.id,
      name: 'Evented',
      email,
      status: 'ACTIVE',
      role: 'USER',
      updatedAt: null,
    });
    expect(byType('user.updated').data).toMatchObject({
      id: userId,
      name: 'Evented Renamed',
      updatedAt: expect.any(String),
    });
    expect(byType('user.deleted').data).toMatchObject({ id: userId, name: 'Evented Renamed', status: 'DELETED' });
    expect(byType('comment.created').data).toMatchObject({
      id: commentId,
      content: 'Nice',
      parentId: null,
      updatedAt: null,
      author: { id: userId },
      post: { id: postId, title: 'Event me', authorId: user.id },
    });
    expect(byType('comment.updated').data).toMatchObject({
      id: commentId,
      content: 'Nice, edited',
      updatedAt: expect.any(String),
      author: { id: userId },
      post: { id: postId },
    });
    expect(byType('comment.deleted').data).toMatchObject({ id: commentId, content: 'Nice, edited' });
    const first = byType('post.created');
    expect(first).toMatchObject({
      specversion: '1.0',
      source: '/content',
      datacontenttype: 'application/json',
      dataschema: 'urn:platform:content-events:v1',
      subject: postId,
      data: {
        id: postId,
        localId: id,
        title: 'Event me',
        status: 'DRAFT',
        tags: ['k'],
        author: { id: userId, name: 'Evented Renamed' },
      },
    });
    expect(byType('post.updated').data).toMatchObject({
      status: 'PUBLISHED',
      published: true,
      publishedAt: expect.any(String),
    });
    expect(new Set(collector.events.map((e) => e.id)).size).toBe(collector.events.length);
    expect(collector.keys.every((k, i) => k === collector!.events[i]!.subject)).toBe(true);
  }, 120_000);

  it('Kafka cut off while content runs: writes succeed, and when the broker is back all events arrive in per-entity order, content never restarted', async () => {
    const broker = stackEnv().KAFKA_BROKERS.split(',')[0]!;
    proxy = await startKafkaProxy(broker);
    app = await startContent({ KAFKA_BROKERS: `127.0.0.1:${proxy.port}`, OUTBOX_POLL_MS: '100' });
    const pid = app.process.pid;
    collector = await collectEvents(app.topicPrefix);
    const user = await seedUser(app, { name: 'Cut Off Writer' });

    // Before the cut: an event goes through the proxy, and the producer was told the proxy's
    // address as the broker's (so no connection of content's bypasses it).
    const before = await api(app, 'POST', '/api/v1/posts', {
      caller: user,
      body: { title: 'Before the cut', content: 'c' },
    });
    expect(before.status).toBe(201);
    await eventually(async () => (collector!.events.length === 1 ? true : undefined), 30_000, 'the first event');
    await eventually(
      async () => ((await app!.mongo.collection('outbox').countDocuments()) === 0 ? true : undefined),
      10_000,
      'empty outbox',
    );
    expect(proxy.rewrites).toBeGreaterThan(0);

    await proxy.cut();
    const ids: number[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await api(app, 'POST', '/api/v1/posts', {
        caller: user,
        body: { title: `Offline ${i}`, content: 'c' },
      });
      expect(res.status).toBe(201);
      ids.push(res.json.id as number);
    }
    // Two updates on each of ten posts: their order per entity is what must survive.
    for (const id of ids.slice(0, 10)) {
      expect((await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: user, body: { published: true } })).status).toBe(
        200,
      );
      expect(
        (await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: user, body: { title: `Offline ${id} v2` } })).status,
      ).toBe(200);
    }
    // The relay keeps trying (the proxy turns its connections away) and nothing gets out: the
    // broker, read directly, still holds the one event from before the cut.
    const refusedBefore = proxy.refused;
    await eventually(
      async () => (proxy!.refused >= refusedBefore + 3 ? true : undefined),
      60_000,
      'three refused attempts',
    );
    expect(await collector.published()).toBe(1);
    expect(collector.events.length).toBe(1);
    expect(await app.mongo.collection('outbox').countDocuments()).toBe(70);

    await proxy.restore();
    await eventually(async () => (collector!.events.length >= 71 ? true : undefined), 60_000, '71 events');
    await eventually(
      async () => ((await app!.mongo.collection('outbox').countDocuments()) === 0 ? true : undefined),
      10_000,
      'empty outbox',
    );
    expect(await collector.published()).toBe(71);
    const events = collector.events.slice(1);
    expect(events).toHaveLength(70);
    expect(new Set(collector.events.map((e) => e.id)).size).toBe(71);
    const created = events.filter((e) => e.type === 'post.created').map((e) => e.data.localId as number);
    expect(created.sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    for (const id of ids) {
      const subject = toGlobalId('Post', id);
      const mine = events
        .filter((e) => e.subject === subject)
        .map(
          (e) =>
            `${e.type} ${String((e.data as { title?: string }).title)} ${String((e.data as { status?: string }).status)}`,
        );
      expect(mine).toEqual(
        ids.indexOf(id) < 10
          ? [
              `post.created Offline ${ids.indexOf(id)} DRAFT`,
              `post.updated Offline ${ids.indexOf(id)} PUBLISHED`,
              `post.updated Offline ${id} v2 PUBLISHED`,
            ]
          : [`post.created Offline ${ids.indexOf(id)} DRAFT`],
      );
    }
    expect(proxy.problems).toEqual([]);
    // The same content process did all of it.
    expect(app.process.pid).toBe(pid);
    expect(app.process.exitCode).toBeNull();
  }, 150_000);

  it('content started with no broker reachable and restarted against one publishes its earlier writes', async () => {
    const deadPort = await freePort();
    app = await startContent({ KAFKA_BROKERS: `127.0.0.1:${deadPort}` });
    const user = await seedUser(app, { name: 'Offline Writer' });
    const ids: number[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await api(app, 'POST', '/api/v1/posts', {
        caller: user,
        body: { title: `Offline ${i}`, content: 'c' },
      });
      expect(res.status).toBe(201);
      ids.push(res.json.id as number);
    }
    for (const id of ids.slice(0, 10)) {
      expect((await api(app, 'PATCH', `/api/v1/posts/${id}`, { caller: user, body: { published: true } })).status).toBe(
        200,
      );
    }
    expect(await app.mongo.collection('outbox').countDocuments()).toBe(60);
    const shared = { db: app.db, topicPrefix: app.topicPrefix, redisPrefix: app.redisPrefix };
    await stopContent(app, false);
    app = undefined;

    collector = await collectEvents(shared.topicPrefix);
    app = await startContent({}, shared);
    const events = await eventually(
      async () => (collector!.events.length >= 60 ? collector!.events : undefined),
      45_000,
      '60 events',
    );
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
          api(i % 2 === 0 ? app! : second, 'POST', '/api/v1/posts', {
            caller: user,
            body: { title: `Replica ${i}`, content: 'c' },
          }),
        ),
      );
      await eventually(
        async () => ((await app!.mongo.collection('outbox').countDocuments()) === 0 ? true : undefined),
        30_000,
        'empty outbox',
      );
      expect(await collector.published()).toBe(30);
      await eventually(async () => (collector!.events.length >= 30 ? true : undefined), 30_000, '30 events');
      expect(collector.events).toHaveLength(30);
      expect(new Set(collector.events.map((e) => e.id)).size).toBe(30);
    } finally {
      await stopContent(second, false);
    }
  }, 120_000);
});
