import type { Admin, Consumer, Kafka } from 'kafkajs';
import { createLogger } from '@platform/logger';
import { eventually } from '@platform/testing';
import { startContentFeed } from '../src/subscriptions/kafka-feed';

type Handler = (event: { payload: { error: Error; restart: boolean } }) => void;

/** A kafkajs consumer as far as the feed uses it, whose group join and crashes the test triggers. */
function fakeConsumer() {
  const handlers = new Map<string, Handler>();
  const state = { running: false, disconnected: false };
  const consumer = {
    events: { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash' },
    on: (name: string, handler: Handler) => handlers.set(name, handler),
    connect: async () => undefined,
    subscribe: async () => undefined,
    run: async () => {
      state.running = true;
    },
    disconnect: async () => {
      state.disconnected = true;
    },
  };
  return {
    consumer: consumer as unknown as Consumer,
    state,
    join: () => handlers.get('consumer.group_join')!({ payload: { error: new Error('none'), restart: false } }),
    crash: (restart: boolean) =>
      handlers.get('consumer.crash')!({
        payload: { error: new Error('KafkaJSNonRetriableError: broker went away'), restart },
      }),
  };
}

it('a consumer that kafkajs will not restart is replaced by a new one of the same group, and the feed is ready again once it joins', async () => {
  const consumers: ReturnType<typeof fakeConsumer>[] = [];
  const groups: string[] = [];
  const admin = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    listTopics: async () => ['content.users', 'content.posts', 'content.comments'],
    fetchTopicOffsets: async () => [{ partition: 0, offset: '0', high: '0', low: '0' }],
    setOffsets: async () => undefined,
    deleteGroups: async () => [],
  } as unknown as Admin;
  const kafka = {
    admin: () => admin,
    consumer: ({ groupId }: { groupId: string }) => {
      groups.push(groupId);
      const made = fakeConsumer();
      consumers.push(made);
      return made.consumer;
    },
  } as unknown as Kafka;
  const feed = await startContentFeed({
    kafka,
    topicPrefix: '',
    groupId: 'gateway-subscriptions-x',
    logger: createLogger('test', 'silent'),
    onEvent: async () => undefined,
  });
  try {
    consumers[0]!.join();
    await feed.ready;
    expect(feed.isReady()).toBe(true);

    // A crash kafkajs restarts by itself changes nothing here.
    consumers[0]!.crash(true);
    expect(consumers).toHaveLength(1);

    // One it will not restart: the feed is not ready, and starts a new consumer of the same group.
    consumers[0]!.crash(false);
    expect(feed.isReady()).toBe(false);
    await eventually(() => consumers.length === 2 && consumers[1]!.state.running, 10_000);
    expect(consumers[0]!.state.disconnected).toBe(true);
    expect(groups).toEqual(['gateway-subscriptions-x', 'gateway-subscriptions-x']);
    consumers[1]!.join();
    expect(feed.isReady()).toBe(true);
  } finally {
    await feed.stop();
  }
});
