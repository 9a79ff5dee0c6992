import { randomBytes } from 'node:crypto';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import { toGlobalId } from '@platform/graphql-schema';
import { freePort, scrapeMetrics, sumOf, type RunningApp } from '@platform/testing';
import { eventually, json, registerAccount, startPlatform, type Account, type Platform } from './platform';
import { collect, connection, wsClient, type Collected } from './subscriptions-client';

/**
 * Every per-connection bound of the WebSockets also holds per client address (anonymous) and per
 * account, across replicas (docs/security.md "WebSocket limits"): graphql-ws connections and active
 * subscriptions, a message budget per socket, the nested fetches one event may cause for all of an
 * account's connections, and stream-input sockets waiting for a key. Small caps here; each test
 * uses addresses (X-Forwarded-For from a trusted proxy) and accounts of its own.
 */
const ADDRESS_CONNECTIONS = 3;
const ACCOUNT_CONNECTIONS = 2;
const ACCOUNT_SUBSCRIPTIONS = 3;
const MESSAGE_BURST = 20;
const ACCOUNT_FETCHES = 10;
const SPEECH_ADDRESS_CONNECTIONS = 2;

let platform: Platform;
let a: RunningApp;
let b: RunningApp;
let contentMetrics: string;
const clients: Client[] = [];
let hosts = 0;
const freshIpv6 = () => {
  hosts += 1;
  return `2001:db8:${hosts.toString(16)}::${randomBytes(2).toString('hex')}`;
};

beforeAll(async () => {
  const metricsPort = await freePort();
  contentMetrics = `http://127.0.0.1:${metricsPort}`;
  platform = await startPlatform({
    gateways: 2,
    contentEnv: { METRICS_PORT: String(metricsPort) },
    gatewayEnv: {
      PLAN_LIMITS_JSON: JSON.stringify({
        free: { rps: 200, concurrency: 50 },
        anonymous: { rps: 200, concurrency: 50 },
      }),
      TRUSTED_PROXIES: 'loopback',
      GRAPHQL_WS_CONNECTIONS_PER_ADDRESS: String(ADDRESS_CONNECTIONS),
      GRAPHQL_WS_CONNECTIONS_PER_ACCOUNT: String(ACCOUNT_CONNECTIONS),
      SUBSCRIPTIONS_PER_ACCOUNT: String(ACCOUNT_SUBSCRIPTIONS),
      GRAPHQL_WS_MESSAGES_PER_SECOND: '1',
      GRAPHQL_WS_MESSAGE_BURST: String(MESSAGE_BURST),
      SUBSCRIPTION_ACCOUNT_MAX_FETCHES: String(ACCOUNT_FETCHES),
      SPEECH_WS_CONNECTIONS_PER_ADDRESS: String(SPEECH_ADDRESS_CONNECTIONS),
    },
  });
  [a, b] = platform.gateways as [RunningApp, RunningApp];
}, 180_000);

afterAll(async () => {
  for (const client of clients) await client.dispose();
  await platform?.stop();
});

function open(gateway: RunningApp, address: string, account?: Account): Client {
  const client = wsClient(gateway.url, account ? { authorization: `Bearer ${account.token}` } : {}, {
    forwardedFor: address,
  });
  clients.push(client);
  return client;
}

async function createPost(account: Account, title: string): Promise<string> {
  const res = await fetch(`${a.url}/api/v1/posts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` },
    body: JSON.stringify({ title, content: `${title} body`, published: true }),
  });
  const body = (await json(res)) as { id?: string | number };
  if (res.status !== 201) throw new Error(`create post: ${res.status} ${JSON.stringify(body)}`);
  return String(body.id);
}

async function retitle(account: Account, postId: string, title: string): Promise<void> {
  const res = await fetch(`${a.url}/api/v1/posts/${postId}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` },
    body: JSON.stringify({ title }),
  });
  if (res.status !== 200) throw new Error(`update post: ${res.status} ${JSON.stringify(await json(res))}`);
}

/** Posts until every one of `subs` has an event with the probe prefix (then they are live), or one was refused. */
async function untilLive(
  account: Account,
  subs: Collected<{ onPostCreated: { title: string } }>[],
  prefix: string,
): Promise<void> {
  let n = 0;
  await eventually(
    async () => {
      n += 1;
      await createPost(account, `${prefix} ${n}`);
      return subs.every(
        (sub) => sub.errors.length > 0 || sub.items.some((item) => item.onPostCreated.title.startsWith(prefix)),
      );
    },
    20_000,
    300,
  );
}

const TITLES = 'subscription { onPostCreated { title } }';

describe('graphql-ws connections per client address and per account, across replicas', () => {
  it(`past ${ADDRESS_CONNECTIONS} anonymous connections from one address, the next is closed 4429; another address is served; closing one frees its place`, async () => {
    const attacker = freshIpv6();
    const held = [open(a, attacker), open(b, attacker), open(a, attacker)];
    expect(await Promise.all(held.map(connection))).toEqual(['connected', 'connected', 'connected']);
    // The next one, on either replica, is refused.
    expect(await connection(open(b, attacker))).toEqual({
      code: 4429,
      reason: `too many connections: at most ${ADDRESS_CONNECTIONS} per client address`,
    });
    expect(await connection(open(b, freshIpv6()))).toBe('connected');
    await held[0]!.dispose();
    await eventually(async () => (await connection(open(b, attacker))) === 'connected', 10_000, 100);
  }, 60_000);

  it(`past ${ACCOUNT_CONNECTIONS} connections of an account, the next is closed 4429, from any address and replica`, async () => {
    const alice = await registerAccount(a.url, 'Alice Sockets');
    expect(
      await Promise.all([connection(open(a, freshIpv6(), alice)), connection(open(b, freshIpv6(), alice))]),
    ).toEqual(['connected', 'connected']);
    expect(await connection(open(a, freshIpv6(), alice))).toEqual({
      code: 4429,
      reason: `too many connections: at most ${ACCOUNT_CONNECTIONS} per account`,
    });
    // Another account is not affected.
    const other = await registerAccount(a.url, 'Other Sockets');
    expect(await connection(open(a, freshIpv6(), other))).toBe('connected');
  }, 60_000);
});

describe('active subscriptions per account, over all its connections', () => {
  it(`past ${ACCOUNT_SUBSCRIPTIONS} subscriptions of an account, refuses the next on another connection and replica with RATE_LIMITED; completing one frees its place`, async () => {
    const bob = await registerAccount(a.url, 'Bob Subscriptions');
    const first = open(a, freshIpv6(), bob);
    const second = open(b, freshIpv6(), bob);
    const held = [
      collect<{ onPostCreated: { title: string } }>(first, TITLES),
      collect<{ onPostCreated: { title: string } }>(first, TITLES),
      collect<{ onPostCreated: { title: string } }>(second, TITLES),
    ];
    await untilLive(bob, held, 'live');
    expect(held.map((sub) => sub.errors)).toEqual([[], [], []]);
    const over = collect(second, TITLES);
    await eventually(() => over.errors.length > 0, 15_000, 50);
    expect(over.errors[0]).toMatchObject({
      message: `at most ${ACCOUNT_SUBSCRIPTIONS} active subscriptions per account, over all its connections`,
      extensions: { code: 'RATE_LIMITED' },
    });
    held[0]!.dispose();
    // Its place is free once the gateway has seen the complete: a new subscription is then served.
    let again: Collected<{ onPostCreated: { title: string } }> | null = null;
    let n = 0;
    await eventually(
      async () => {
        if (!again || again.errors.length > 0) again = collect<{ onPostCreated: { title: string } }>(second, TITLES);
        n += 1;
        await createPost(bob, `freed ${n}`);
        return again.items.length > 0;
      },
      20_000,
      300,
    );
  }, 60_000);
});

describe('messages per socket', () => {
  it(`a socket that sends more than its burst of ${MESSAGE_BURST} messages is closed 4429`, async () => {
    const client = open(a, freshIpv6());
    expect(await connection(client)).toBe('connected');
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      client.on('closed', (event) => {
        const { code, reason } = event as { code: number; reason: string };
        resolve({ code, reason });
      }),
    );
    // Subscriptions as a client opens them, more than the burst in one go (at one message per second, no refill can keep up).
    for (let i = 0; i < MESSAGE_BURST + 10; i += 1) collect(client, TITLES);
    expect(await closed).toEqual({
      code: 4429,
      reason: `too many messages: at most 1 per second (burst ${MESSAGE_BURST})`,
    });
  }, 30_000);
});

describe("nested fetches per event, over all of an account's connections", () => {
  it(`one event causes at most ${ACCOUNT_FETCHES} content queries for an account, however many connections ask`, async () => {
    const carol = await registerAccount(a.url, 'Carol Fetches');
    const postId = await createPost(carol, 'fetched');
    const id = toGlobalId('Post', postId);
    // Two connections on one replica, eight nested fetches each (distinct aliases: nothing shared): 16 without the account's bound.
    const selection = (prefix: string) =>
      Array.from({ length: 8 }, (_, i) => `${prefix}${i}: comments(first: ${i + 1}) { totalCount }`).join(' ');
    type Updated = { onPostUpdated: { title: string } | null };
    const results: {
      data?: Updated | null;
      errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
    }[][] = [[], []];
    ['x', 'y'].forEach((prefix, i) => {
      open(a, freshIpv6(), carol).subscribe<Updated>(
        {
          query: `subscription($id: ID!) { onPostUpdated(id: $id) { title ${selection(prefix)} } }`,
          variables: { id },
        },
        {
          next: (r) => void results[i]!.push(r),
          error: (e) => void results[i]!.push({ errors: [{ message: String(e) }] }),
          complete: () => undefined,
        },
      );
    });
    const titleOf = (r: (typeof results)[number][number] | undefined) => r?.data?.onPostUpdated?.title;
    // One update, settled: it brought each connection exactly one result, the last of one of them carrying its title
    // (which connection gets its eight fields depends on which subscribed first; the other's result is cut short, and
    // null). A round that also delivered an earlier update is not settled, and another is tried.
    const update = async (title: string): Promise<() => boolean> => {
      const start = results.map((r) => r.length);
      await retitle(carol, postId, title);
      return () =>
        results.every((r, i) => r.length === start[i]! + 1) && results.some((r) => titleOf(r.at(-1)) === title);
    };
    // Both subscribed, and every earlier update's fetches done, once a probe settles.
    let n = 0;
    await eventually(
      async () => {
        n += 1;
        const settled = await update(`probe ${n}`);
        return eventually(settled, 5_000, 50).then(
          () => true,
          () => false,
        );
      },
      45_000,
      0,
    );
    const queries = async () =>
      sumOf(await scrapeMetrics(contentMetrics), 'http_server_request_duration_seconds_count', {
        route: '/graphql',
        method: 'POST',
      });
    const before = await queries();
    await eventually(await update('measured'), 20_000, 50);
    expect((await queries()) - before).toBe(ACCOUNT_FETCHES);
    const measured = results.map((r) => r.at(-1)!);
    // One connection got its eight fields, the other two before the account's allowance was spent.
    const whole = measured.filter((r) => titleOf(r) === 'measured');
    const cut = measured.filter((r) => r.errors !== undefined);
    expect(whole).toHaveLength(1);
    expect(cut).toHaveLength(1);
    expect(cut[0]!.errors![0]).toMatchObject({
      message: `this account's subscriptions need more than ${ACCOUNT_FETCHES} nested fetches for one event`,
      extensions: { code: 'QUERY_TOO_COMPLEX', maxFetches: ACCOUNT_FETCHES },
    });
  }, 90_000);
});

describe('stream-input sockets per client address until a key is accepted', () => {
  function upgrade(
    gateway: RunningApp,
    address: string,
  ): Promise<{ ws: WebSocket } | { status: number; body: unknown }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(
        `${gateway.url.replace(/^http/, 'ws')}/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM/stream-input`,
        { headers: { 'x-forwarded-for': address } },
      );
      ws.on('open', () => resolve({ ws }));
      ws.on('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
      });
      ws.on('error', reject);
    });
  }

  it(`past ${SPEECH_ADDRESS_CONNECTIONS} sockets without a key from one address, the next upgrade is answered 429 at the upgrade, on either replica`, async () => {
    const attacker = freshIpv6();
    const held = await Promise.all([upgrade(a, attacker), upgrade(b, attacker)]);
    expect(held.every((r) => 'ws' in r)).toBe(true);
    expect(await upgrade(a, attacker)).toEqual({
      status: 429,
      body: {
        detail: {
          status: 'too_many_requests',
          message: `too many connections without an accepted API key: at most ${SPEECH_ADDRESS_CONNECTIONS} per client address`,
        },
      },
    });
    const elsewhere = await upgrade(b, freshIpv6());
    expect('ws' in elsewhere).toBe(true);
    for (const r of [...held, elsewhere]) if ('ws' in r) r.ws.close();
  }, 30_000);
});
