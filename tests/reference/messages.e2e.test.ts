import WebSocket from 'ws';
import { asyncApi } from '@platform/api-docs';
import { CONTENT_TOPIC_BASES, entityOfType, type ContentEventType } from '@platform/events';
import { collectEvents, type EventCollector } from '../content/event-collector';
import { eventually, registerAccount, startPlatform, type Account, type Platform } from '../gateway/platform';
import { messageValidator } from './message-validator';

/**
 * The AsyncAPI document against the real platform: the CloudEvents content publishes on Kafka while
 * a person signs up, posts, edits, comments and deletes, and the graphql-transport-ws messages the
 * gateway sends a subscriber, each validated against its message's payload schema.
 */
jest.setTimeout(120_000);

let platform: Platform;
let account: Account;
let collector: EventCollector;
const document = asyncApi();
const validator = messageValidator(document);

beforeAll(async () => {
  platform = await startPlatform({ gatewayEnv: { PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 100, concurrency: 10 } }) } });
  collector = await collectEvents(platform.topicPrefix);
  account = await registerAccount(platform.publicUrl, 'Ada Messages');
});

afterAll(async () => {
  await collector?.stop();
  await platform?.stop();
});

async function graphql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${platform.publicUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (!body.data || body.errors) throw new Error(`GraphQL: ${JSON.stringify(body)}`);
  return body.data;
}

const createPost = (title: string) =>
  graphql<{ createPost: { post: { id: string } } }>('mutation ($input: CreatePostInput!) { createPost(input: $input) { post { id } } }', {
    input: { title, content: 'About messages.', status: 'PUBLISHED' },
  });

it('every content event on Kafka matches its message in the document', async () => {
  const { createPost: created } = await createPost('Documented events');
  const postId = created.post.id;
  await graphql('mutation ($id: ID!, $input: UpdatePostInput!) { updatePost(id: $id, input: $input) { success } }', { id: postId, input: { title: 'Documented events, edited' } });
  await graphql('mutation ($input: CreateCommentInput!) { createComment(input: $input) { id } }', { input: { postId, content: 'A documented comment.' } });
  await graphql('mutation ($id: ID!) { deletePost(id: $id) { success } }', { id: postId });

  const expected: ContentEventType[] = ['user.created', 'post.created', 'post.updated', 'comment.created', 'post.deleted'];
  await eventually(() => expected.every((type) => collector.events.some((event) => event.type === type)), 60_000);
  for (const event of collector.events) {
    const channel = validator.channelAt(CONTENT_TOPIC_BASES[entityOfType(event.type)]);
    expect(channel).toBeDefined();
    expect({ type: event.type, problems: validator.problems(channel!, event.type, event) }).toEqual({ type: event.type, problems: [] });
  }
});

it('the graphql-transport-ws messages a subscriber receives match the document', async () => {
  const socket = new WebSocket(`${platform.publicUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  const received: { type: string }[] = [];
  socket.on('message', (data) => received.push(JSON.parse(String(data)) as { type: string }));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${account.token}` } }));
  await eventually(() => received.some((m) => m.type === 'connection_ack'), 30_000);
  socket.send(JSON.stringify({ type: 'subscribe', id: 'posts', payload: { query: 'subscription { onPostCreated { title author { name } } }' } }));
  socket.send(JSON.stringify({ type: 'subscribe', id: 'bad', payload: { query: 'subscription { nope }' } }));
  // Posts until one arrives: the subscription is live once the gateway has registered it.
  await eventually(async () => {
    if (received.some((m) => m.type === 'next')) return true;
    await createPost('Seen by a documented subscriber');
    return false;
  }, 60_000, 1_000);
  await eventually(() => received.some((m) => m.type === 'error'), 30_000);
  socket.close(1000);

  const channel = validator.channelAt('/graphql')!;
  expect(received.map((m) => m.type)).toEqual(expect.arrayContaining(['connection_ack', 'next', 'error']));
  for (const message of received) {
    expect({ type: message.type, problems: validator.problems(channel, message.type, message) }).toEqual({ type: message.type, problems: [] });
  }
});
