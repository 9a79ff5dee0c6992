import { Kafka, logLevel } from 'kafkajs';
import WebSocket from 'ws';
import { buildContentEvent, contentTopic, type PostSnapshot } from '@platform/events';
import { freePort, postSnapshot, stackEnv, startApp, uniqueName, type RunningApp } from '@platform/testing';
import { eventually, INTERNAL_SECRET } from './platform';

/**
 * A subscriber that stops reading fills its bounded buffer and is closed (1008); a subscriber
 * that reads keeps receiving every event, in order. Events are produced straight to Kafka with the
 * libs/events builders (the envelope content publishes), so the test controls size and pace.
 */
const EVENTS = 150;
const BODY = 'x'.repeat(100_000);
let gateway: RunningApp;
let kafka: Kafka;
let prefix: string;

beforeAll(async () => {
  const port = await freePort();
  prefix = `${uniqueName('gwslow')}.`;
  gateway = await startApp({
    app: 'gateway',
    env: {
      ...stackEnv(),
      PORT: String(port),
      INTERNAL_SECRET,
      LOG_LEVEL: 'warn',
      KAFKA_TOPIC_PREFIX: prefix,
      RATE_LIMIT_PREFIX: uniqueName('gwslow'),
      // Room for a Kafka fetch's burst (~10 of these 100 kB events) for a client that reads.
      SUBSCRIBER_BUFFER: '40',
      CONTENT_URL: `http://127.0.0.1:${await freePort()}`,
      AUTH_URL: `http://127.0.0.1:${await freePort()}`,
    },
    readyTimeoutMs: 60_000,
  });
  kafka = new Kafka({
    clientId: 'gw-slow-test',
    brokers: stackEnv().KAFKA_BROKERS.split(','),
    logLevel: logLevel.NOTHING,
  });
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
});

function post(n: number, title = `slow ${n}`): PostSnapshot {
  return postSnapshot(n, { title, slug: `slow-${n}`, content: BODY });
}

interface Subscriber {
  socket: WebSocket;
  titles: string[];
  closed: Promise<number>;
}

/** A graphql-transport-ws client written out by hand so it can stop reading its socket. */
async function subscriber(url: string): Promise<Subscriber> {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  const titles: string[] = [];
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    });
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as {
        type: string;
        payload?: { data?: { onPostCreated?: { title: string } } };
      };
      if (message.type === 'connection_ack') {
        socket.send(
          JSON.stringify({
            id: '1',
            type: 'subscribe',
            payload: { query: 'subscription { onPostCreated { title content } }' },
          }),
        );
        resolve();
      }
      if (message.type === 'next' && message.payload?.data?.onPostCreated)
        titles.push(message.payload.data.onPostCreated.title);
    });
    socket.once('error', reject);
  });
  return { socket, titles, closed };
}

it('closes a subscriber that stops reading, without slowing one that reads', async () => {
  const fast = await subscriber(gateway.url);
  const slow = await subscriber(gateway.url);
  const producer = kafka.producer();
  await producer.connect();
  const topic = contentTopic('post', prefix);
  const send = (n: number, title?: string) =>
    // One key: one partition, so the order of delivery is the order of production.
    producer.send({
      topic,
      messages: [
        { key: 'slow-subscriber-test', value: JSON.stringify(buildContentEvent('post.created', post(n, title))) },
      ],
    });
  try {
    // Both live: a warm-up event reaches both.
    let warm = 0;
    await eventually(
      async () => {
        warm += 1;
        await send(100_000 + warm, `warm ${warm}`);
        return fast.titles.length > 0 && slow.titles.length > 0;
      },
      20_000,
      300,
    );
    slow.socket.pause();
    for (let n = 0; n < EVENTS; n += 1) await send(n);
    const slowTitles = () => fast.titles.filter((t) => t.startsWith('slow '));
    await eventually(async () => slowTitles().length >= EVENTS, 60_000).catch((err: unknown) => {
      throw new Error(
        `${String(err)}: fast got ${slowTitles().length} of ${EVENTS}, slow ${slow.titles.length}\n${gateway.output().slice(-3000)}`,
      );
    });
    expect(slowTitles()).toEqual(Array.from({ length: EVENTS }, (_, n) => `slow ${n}`));
    slow.socket.resume();
    expect(await slow.closed).toBe(1008);
    expect(slow.titles.length).toBeLessThan(fast.titles.length);
    expect(fast.socket.readyState).toBe(WebSocket.OPEN);
  } finally {
    await producer.disconnect();
    fast.socket.close();
    slow.socket.terminate();
  }
}, 120_000);
