import { parse } from 'graphql';
import pino from 'pino';
import { buildContentEvent, type CommentSnapshot, type PostSnapshot, type UserSnapshot } from '@platform/events';
import { toGlobalId } from '@platform/graphql-schema';
import { postSnapshot } from '@platform/testing';
import { SubscriptionHub } from '../src/subscriptions/hub';
import { buildSubscriptionSchema } from '../src/subscriptions/subscription-schema';
import type { Viewer } from '../src/subscriptions/viewer';
import { subscribeRecorded, takeNext as take, type Subscribed } from './hub-subscriber';

const schema = buildSubscriptionSchema();
const logger = pino({ level: 'silent' });

const author: UserSnapshot = {
  id: toGlobalId('User', 'acc-1'),
  localId: 'acc-1',
  name: 'Ada',
  email: 'ada@example.com',
  avatar: null,
  status: 'ACTIVE',
  role: 'USER',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: null,
};
const { email: _email, ...authorRef } = author;

function post(localId: number, status: PostSnapshot['status'] = 'PUBLISHED'): PostSnapshot {
  return postSnapshot(localId, { status, published: status === 'PUBLISHED', author: authorRef });
}

function comment(localId: number, onPost: PostSnapshot): CommentSnapshot {
  const { id, title, slug, status, published, createdAt } = onPost;
  return {
    id: toGlobalId('Comment', localId),
    localId,
    content: `comment ${localId}`,
    parentId: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: null,
    author: authorRef,
    post: { id, localId: onPost.localId, title, slug, status, published, createdAt },
  };
}

const user: Viewer = { sub: 'acc-2', roles: ['USER'] };
const admin: Viewer = { sub: 'acc-9', roles: ['ADMIN'] };

function setup(capacity = 10) {
  const fetchField = jest.fn(async (query: string, _variables: Record<string, unknown>): Promise<unknown> => {
    if (query.includes('entity: post(')) return { author: { name: 'Ada (fetched)' }, comments: { totalCount: 7 } };
    return null;
  });
  const hub = new SubscriptionHub({ schema, fetchField, logger, capacity });
  const subscribe = (
    query: string,
    viewer: Viewer,
    variables: Record<string, unknown> = {},
    onOverflow = jest.fn(),
  ): Subscribed => subscribeRecorded(hub, { document: parse(query), variables, viewer, onOverflow });
  return { hub, fetchField, subscribe };
}

describe('SubscriptionHub', () => {
  it('executes once per distinct selection and fans the same result out', async () => {
    const { hub, subscribe } = setup();
    const query = 'subscription { onPostCreated { id title author { name } } }';
    const a = subscribe(query, user);
    const b = subscribe(query, { sub: 'acc-3', roles: ['USER'] });
    const c = subscribe('subscription { onPostCreated { title } }', user);
    expect(hub.stats()).toEqual({ groups: 2, subscribers: 3 });
    await hub.publish(buildContentEvent('post.created', post(1)));
    expect(a.messages).toHaveLength(1);
    // The same payload for both members of the group, each under its own subscription id.
    const payloadText = (message: string | undefined) => message?.slice(message.indexOf('"payload":'));
    expect(a.messages[0]).not.toBe(b.messages[0]);
    expect(payloadText(a.messages[0])).toBe(payloadText(b.messages[0]));
    const [ra, rb, rc] = [take(a), take(b), take(c)];
    expect(ra).toEqual({
      data: { onPostCreated: { id: toGlobalId('Post', 1), title: 'Post 1', author: { name: 'Ada' } } },
    });
    expect(rb).toEqual(ra);
    expect(rc).toEqual({ data: { onPostCreated: { title: 'Post 1' } } });
  });

  it('filters by argument', async () => {
    const { hub, subscribe } = setup();
    const one = subscribe('subscription($id: ID!) { onPostUpdated(id: $id) { title } }', user, {
      id: toGlobalId('Post', 1),
    });
    const two = subscribe('subscription($id: ID!) { onPostUpdated(id: $id) { title } }', user, {
      id: toGlobalId('Post', 2),
    });
    const comments = subscribe(
      `subscription { onCommentAdded(postId: "${toGlobalId('Post', 2)}") { content post { title } } }`,
      user,
    );
    await hub.publish(buildContentEvent('post.updated', post(2)));
    await hub.publish(buildContentEvent('comment.created', comment(5, post(2))));
    await hub.publish(buildContentEvent('post.updated', post(1)));
    expect(take(two)).toEqual({ data: { onPostUpdated: { title: 'Post 2' } } });
    expect(take(one)).toEqual({ data: { onPostUpdated: { title: 'Post 1' } } });
    expect(take(comments)).toEqual({ data: { onCommentAdded: { content: 'comment 5', post: { title: 'Post 2' } } } });
  });

  it('fetches fields the snapshot lacks once per event, not per subscriber', async () => {
    const { hub, subscribe, fetchField } = setup();
    const query = `subscription { onCommentAdded(postId: "${toGlobalId('Post', 3)}") { post { author { name } } } }`;
    const subscribers = Array.from({ length: 5 }, (_, i) => subscribe(query, { sub: `acc-${i}`, roles: ['USER'] }));
    await hub.publish(buildContentEvent('comment.created', comment(6, post(3))));
    for (const s of subscribers)
      expect(take(s)).toEqual({ data: { onCommentAdded: { post: { author: { name: 'Ada (fetched)' } } } } });
    expect(fetchField).toHaveBeenCalledTimes(1);
    expect(fetchField.mock.calls[0]![1]).toEqual({ __id: toGlobalId('Post', 3) });
  });

  it('reads aliases inside fetched objects (content answers by response name)', async () => {
    const { hub, subscribe, fetchField } = setup();
    fetchField.mockImplementation(async (query: string) => {
      expect(query.replace(/\s+/g, ' ')).toContain('c: comments(first: 2) { n: totalCount }');
      return { c: { n: 7 } };
    });
    const s = subscribe('subscription { onPostCreated { title c: comments(first: 2) { n: totalCount } } }', user);
    await hub.publish(buildContentEvent('post.created', post(4)));
    expect(take(s)).toEqual({ data: { onPostCreated: { title: 'Post 4', c: { n: 7 } } } });
  });

  it('shows email only to the user themself and ADMIN', async () => {
    const { hub, subscribe } = setup();
    const query = 'subscription { onUserCreated { name email } }';
    const other = subscribe(query, user);
    const self = subscribe(query, { sub: 'acc-1', roles: ['USER'] });
    const boss = subscribe(query, admin);
    await hub.publish(buildContentEvent('user.created', author));
    expect(take(other)).toEqual({ data: { onUserCreated: { name: 'Ada', email: null } } });
    expect(take(self)).toEqual({ data: { onUserCreated: { name: 'Ada', email: 'ada@example.com' } } });
    expect(take(boss)).toEqual({ data: { onUserCreated: { name: 'Ada', email: 'ada@example.com' } } });
  });

  it('keeps drafts from everyone but their author and moderators', async () => {
    const { hub, subscribe } = setup();
    const query = 'subscription { onPostCreated { title } }';
    const stranger = subscribe(query, user);
    const owner = subscribe(query, { sub: 'acc-1', roles: ['USER'] });
    await hub.publish(buildContentEvent('post.created', post(7, 'DRAFT')));
    await hub.publish(buildContentEvent('post.created', post(8)));
    expect(take(owner)).toEqual({ data: { onPostCreated: { title: 'Post 7' } } });
    expect(take(stranger)).toEqual({ data: { onPostCreated: { title: 'Post 8' } } });
  });

  it('closes a slow subscriber whose buffer overflows without holding up the others', async () => {
    const { hub, subscribe } = setup(3);
    const query = 'subscription { onPostCreated { title } }';
    const slowOverflow = jest.fn();
    const slow = subscribe(query, user, {}, slowOverflow);
    slow.outlet.blocked = true;
    const fast = subscribe('subscription { onPostCreated { id } }', user);
    const received: unknown[] = [];
    for (let i = 1; i <= 6; i += 1) {
      await hub.publish(buildContentEvent('post.created', post(i)));
      received.push(take(fast));
    }
    expect(received).toHaveLength(6);
    expect(slowOverflow).toHaveBeenCalledTimes(1);
    expect(slow.messages).toEqual([]);
    expect((await slow.stream.next()).done).toBe(true);
    expect(hub.stats()).toEqual({ groups: 1, subscribers: 1 });
  });

  it('holds messages while the socket is blocked and writes them in order when it drains', async () => {
    const { hub, subscribe } = setup(3);
    const s = subscribe('subscription { onPostCreated { title } }', user);
    s.outlet.blocked = true;
    await hub.publish(buildContentEvent('post.created', post(1)));
    await hub.publish(buildContentEvent('post.created', post(2)));
    expect(s.messages).toEqual([]);
    expect(s.stream.size).toBe(2);
    // Unblocked but not yet drained: a new event queues behind the two, never ahead of them.
    s.outlet.blocked = false;
    await hub.publish(buildContentEvent('post.created', post(3)));
    expect(s.messages).toEqual([]);
    s.unblock();
    expect(
      [take(s), take(s), take(s)].map((r) => (r.data as { onPostCreated: { title: string } }).onPostCreated.title),
    ).toEqual(['Post 1', 'Post 2', 'Post 3']);
    await hub.publish(buildContentEvent('post.created', post(4)));
    expect(take(s)).toEqual({ data: { onPostCreated: { title: 'Post 4' } } });
    expect(s.stream.closed).toBe(false);
  });

  it('writes execution errors in the payload as graphql-ws does', async () => {
    const { hub, subscribe, fetchField } = setup();
    fetchField.mockRejectedValue(new Error('content is down'));
    const s = subscribe('subscription { onPostCreated { title c: comments(first: 2) { n: totalCount } } }', user);
    await hub.publish(buildContentEvent('post.created', post(5)));
    // `comments` is non-null, so its error nulls the root field, and `data` with it.
    expect(s.messages[0]).toMatch(/^\{"id":"sub-\d+","type":"next","payload":\{"data":null,"errors":\[/);
    const result = take(s);
    expect(result.data).toBeNull();
    expect(result.errors).toEqual([
      expect.objectContaining({ message: 'content is down', path: ['onPostCreated', 'c'] }),
    ]);
  });

  it('forgets groups when their last subscriber leaves, and writes nothing more to it', async () => {
    const { hub, subscribe } = setup();
    const s = subscribe('subscription { onPostCreated { title } }', user);
    await s.stream.return();
    expect(hub.stats()).toEqual({ groups: 0, subscribers: 0 });
    await hub.publish(buildContentEvent('post.created', post(6)));
    expect(s.messages).toEqual([]);
    expect((await s.stream.next()).done).toBe(true);
  });

  it('refuses queries and unknown shapes', () => {
    const { hub } = setup();
    const outlet = { blocked: false, send: jest.fn(), onDrain: () => () => undefined };
    const result = hub.subscribe({
      document: parse('{ me { id } }'),
      viewer: user,
      id: '1',
      outlet,
      onOverflow: jest.fn(),
    });
    expect(result).toMatchObject({
      errors: [expect.objectContaining({ message: expect.stringMatching(/only subscriptions/) })],
    });
  });
});
