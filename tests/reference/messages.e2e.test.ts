import WebSocket from 'ws';
import { asyncApi } from '@platform/api-docs';
import { CONTENT_TOPIC_BASES, entityOfType, type ContentEventType } from '@platform/events';
import { collectEvents, type EventCollector } from '../content/event-collector';
import {
  createApiKey,
  eventually,
  registerAccount,
  startPlatform,
  type Account,
  type Platform,
} from '../gateway/platform';
import { messageValidator } from './message-validator';

/**
 * The AsyncAPI document against the real platform: the CloudEvents content publishes on Kafka while
 * a person signs up, posts, edits, comments and deletes, the graphql-transport-ws messages the
 * gateway sends a subscriber, and the speech stream-input messages in both framings, each validated
 * against its message's payload schema.
 */
jest.setTimeout(120_000);

let platform: Platform;
let account: Account;
let collector: EventCollector;
let speechKey: string;
const document = asyncApi();
const validator = messageValidator(document);

beforeAll(async () => {
  // A synthesis worker for stream-input; the free plan given room for the tests' bursts (limits are not tested here).
  platform = await startPlatform({
    speechWorkers: {},
    gatewayEnv: { PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 100, concurrency: 10 } }) },
  });
  collector = await collectEvents(platform.topicPrefix);
  account = await registerAccount(platform.publicUrl, 'Ada Messages');
  speechKey = (await createApiKey(platform.auth.url, account.id)).key;
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
  graphql<{ createPost: { post: { id: string } } }>(
    'mutation ($input: CreatePostInput!) { createPost(input: $input) { post { id } } }',
    {
      input: { title, content: 'About messages.', status: 'PUBLISHED' },
    },
  );

it('every content event on Kafka matches its message in the document', async () => {
  const { createPost: created } = await createPost('Documented events');
  const postId = created.post.id;
  await graphql('mutation ($id: ID!, $input: UpdatePostInput!) { updatePost(id: $id, input: $input) { success } }', {
    id: postId,
    input: { title: 'Documented events, edited' },
  });
  await graphql('mutation ($input: CreateCommentInput!) { createComment(input: $input) { id } }', {
    input: { postId, content: 'A documented comment.' },
  });
  await graphql('mutation ($id: ID!) { deletePost(id: $id) { success } }', { id: postId });

  const expected: ContentEventType[] = [
    'user.created',
    'post.created',
    'post.updated',
    'comment.created',
    'post.deleted',
  ];
  await eventually(() => expected.every((type) => collector.events.some((event) => event.type === type)), 60_000);
  for (const event of collector.events) {
    const channel = validator.channelAt(CONTENT_TOPIC_BASES[entityOfType(event.type)]);
    expect(channel).toBeDefined();
    expect({ type: event.type, problems: validator.problems(channel!, event.type, event) }).toEqual({
      type: event.type,
      problems: [],
    });
  }
});

it('the graphql-transport-ws messages a subscriber receives match the document', async () => {
  const socket = new WebSocket(`${platform.publicUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  const received: { type: string }[] = [];
  socket.on('message', (data) => received.push(JSON.parse(String(data)) as { type: string }));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${account.token}` } }));
  await eventually(() => received.some((m) => m.type === 'connection_ack'), 30_000);
  socket.send(
    JSON.stringify({
      type: 'subscribe',
      id: 'posts',
      payload: { query: 'subscription { onPostCreated { title author { name } } }' },
    }),
  );
  socket.send(JSON.stringify({ type: 'subscribe', id: 'bad', payload: { query: 'subscription { nope }' } }));
  // Posts until one arrives: the subscription is live once the gateway has registered it.
  await eventually(
    async () => {
      if (received.some((m) => m.type === 'next')) return true;
      await createPost('Seen by a documented subscriber');
      return false;
    },
    60_000,
    1_000,
  );
  await eventually(() => received.some((m) => m.type === 'error'), 30_000);
  socket.close(1000);

  const channel = validator.channelAt('/graphql')!;
  expect(received.map((m) => m.type)).toEqual(expect.arrayContaining(['connection_ack', 'next', 'error']));
  for (const message of received) {
    expect({ type: message.type, problems: validator.problems(channel, message.type, message) }).toEqual({
      type: message.type,
      problems: [],
    });
  }
});

describe.each([
  ['binary frames (the default)', '', 'audioFrame'],
  ['JSON messages (shape=hosted)', '&shape=hosted', 'audioMessage'],
])('speech stream-input, %s', (_name, query, audioMessage) => {
  it('every message the gateway sends matches the document', async () => {
    const url = `${platform.publicUrl.replace(/^http/, 'ws')}/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM/stream-input?output_format=pcm_16000${query}`;
    const socket = new WebSocket(url, { headers: { 'xi-api-key': speechKey } });
    const frames: { binary: boolean; text: string }[] = [];
    socket.on('message', (data, binary) => frames.push({ binary, text: binary ? '' : String(data) }));
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    for (const message of [{ text: ' ' }, { text: 'Documented speech, one sentence. ', flush: true }, { text: '' }])
      socket.send(JSON.stringify(message));
    expect(await closed).toBe(1000);

    const channel = validator.channelAt('/v1/text-to-speech/{voice_id}/stream-input')!;
    const kinds = frames.map((frame) => {
      if (frame.binary) return 'audioFrame';
      const body = JSON.parse(frame.text) as Record<string, unknown>;
      const kind = 'detail' in body ? 'error' : 'audio' in body ? 'audioMessage' : 'final';
      expect({ kind, problems: validator.payloadProblems(channel, kind, body) }).toEqual({ kind, problems: [] });
      return kind;
    });
    expect(kinds[0]).toBe(audioMessage);
    expect(new Set(kinds)).toEqual(new Set([audioMessage, 'final']));
    expect(kinds.at(-1)).toBe('final');
  });
});
