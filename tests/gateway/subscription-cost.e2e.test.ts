import type { Client } from 'graphql-ws';
import { eventually, json, registerAccount, startPlatform, type Account, type Platform } from './platform';
import { collect, wsClient, type Collected } from './subscriptions-client';

/**
 * Subscriptions are priced with the shared cost model (libs/graphql-schema) when the client
 * subscribes, since every event runs the selection again: a budget per subscription and per
 * connection, at most 30 repeated selections, and a bound on the nested fetches from content one
 * event may cause for one connection (docs/gateway.md, "Subscription cost").
 */
let platform: Platform;
let gateway: string;
let alice: Account;
const clients: Client[] = [];

beforeAll(async () => {
  platform = await startPlatform({
    gatewayEnv: { PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 200, concurrency: 50 } }) },
  });
  gateway = platform.publicUrl;
  alice = await registerAccount(gateway, 'Alice Cost');
}, 180_000);

afterAll(async () => {
  for (const client of clients) await client.dispose();
  await platform?.stop();
});

function connect(): Client {
  const client = wsClient(gateway, { authorization: `Bearer ${alice.token}` });
  clients.push(client);
  return client;
}

async function createPost(title: string): Promise<void> {
  const res = await fetch(`${gateway}/api/v1/posts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.token}` },
    body: JSON.stringify({ title, content: `${title} body`, published: true }),
  });
  if (res.status !== 201) throw new Error(`create post: ${res.status} ${JSON.stringify(await json(res))}`);
}

/** Waits until the subscription was refused (graphql-ws `error` message) and returns its error. */
async function refusal(sub: Collected<unknown>): Promise<{ message: string; extensions: Record<string, unknown> }> {
  await eventually(() => sub.errors.length > 0, 15_000, 50);
  return sub.errors[0] as { message: string; extensions: Record<string, unknown> };
}

/** Sends posts until `sub` has seen one with the probe prefix: the subscription is live. */
async function untilDelivered(
  sub: Collected<{ onPostCreated: { title: string } | null }>,
  prefix: string,
): Promise<void> {
  let n = 0;
  await eventually(
    async () => {
      n += 1;
      await createPost(`${prefix} ${n}`);
      return sub.items.some((i) => i.onPostCreated?.title.startsWith(prefix));
    },
    20_000,
    300,
  );
}

describe('subscription cost', () => {
  it('refuses ten subscriptions with hundreds of aliased nested connections when they subscribe', async () => {
    const client = connect();
    const aliases = Array.from(
      { length: 200 },
      (_, i) => `c${i}: comments(first: 100) { totalCount edges { node { id } } }`,
    ).join(' ');
    const abusive = Array.from({ length: 10 }, () => collect(client, `subscription { onPostCreated { ${aliases} } }`));
    for (const sub of abusive) {
      const error = await refusal(sub);
      expect(error.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', maxAliases: 30 });
    }
    // The connection stays usable for a subscription within the limits.
    const fine = collect<{ onPostCreated: { title: string; author: { name: string } } }>(
      client,
      'subscription { onPostCreated { title author { name } } }',
    );
    await untilDelivered(fine, 'after abuse');
    expect(fine.errors).toEqual([]);
    expect(fine.items.find((i) => i.onPostCreated.title.startsWith('after abuse'))?.onPostCreated.author.name).toBe(
      'Alice Cost',
    );
    expect(abusive.every((sub) => sub.items.length === 0)).toBe(true);
  }, 60_000);

  it('refuses a subscription over its own budget of 500', async () => {
    const client = connect();
    // 100 comments, each with a count of its replies: 1 808 points per event.
    const sub = collect(
      client,
      'subscription { onPostCreated { comments(first: 100) { edges { node { replies(first: 0) { totalCount } } } } } }',
    );
    expect((await refusal(sub)).extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', cost: 1808, maxCost: 500 });
  });

  it("refuses a subscription that would take a connection's subscriptions over 2 000 together; completing one frees its share", async () => {
    const client = connect();
    // 408 points each: four fit in the connection's 2 000, a fifth does not.
    const heavy =
      'subscription { onPostCreated { comments(first: 20) { edges { node { author { name } replies(first: 0) { totalCount } } } } } }';
    const first = Array.from({ length: 4 }, () => collect(client, heavy));
    const fifth = collect(client, heavy);
    expect((await refusal(fifth)).extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', cost: 2040, maxCost: 2000 });
    // A cheap one still fits, and is live.
    const cheap = collect<{ onPostCreated: { title: string } }>(client, 'subscription { onPostCreated { title } }');
    await untilDelivered(cheap, 'budget probe');
    expect(first.every((sub) => sub.errors.length === 0)).toBe(true);
    expect(cheap.errors).toEqual([]);
    first[0]!.dispose();
    const again = collect<{ onPostCreated: { title: string } }>(
      client,
      heavy.replace('onPostCreated {', 'onPostCreated { title'),
    );
    await untilDelivered(again, 'freed probe');
    expect(again.errors).toEqual([]);
  }, 60_000);

  it('bounds the nested fetches one event causes for a connection: a field past 20 fetches fails with QUERY_TOO_COMPLEX', async () => {
    const client = connect();
    // 25 connections under distinct arguments: 25 fetches from content per event, within the cost budget (426).
    const fields = Array.from({ length: 25 }, (_, i) => `c${i}: comments(first: ${i + 1}) { totalCount }`).join(' ');
    const results: { data?: unknown; errors?: readonly { message: string; extensions?: Record<string, unknown> }[] }[] =
      [];
    client.subscribe(
      { query: `subscription { onPostCreated { title ${fields} } }` },
      {
        next: (r) => void results.push(r),
        error: (e) => void results.push({ errors: [{ message: String(e) }] }),
        complete: () => undefined,
      },
    );
    let n = 0;
    await eventually(
      async () => {
        n += 1;
        await createPost(`fetch probe ${n}`);
        return results.length > 0;
      },
      20_000,
      300,
    );
    // Fields resolve in order: c0…c19 are fetched, c20 is refused and, being non-null, nulls the result.
    expect(results[0]!.data).toBeNull();
    expect(results[0]!.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/more than 20 nested fetches/),
        extensions: { code: 'QUERY_TOO_COMPLEX', maxFetches: 20 },
        path: ['onPostCreated', 'c20'],
      }),
    ]);
    // 20 distinct connections are within the bound and delivered whole.
    const within = collect<{ onPostCreated: Record<string, { totalCount: number }> | null }>(
      connect(),
      `subscription { onPostCreated { ${Array.from({ length: 20 }, (_, i) => `c${i}: comments(first: ${i + 1}) { totalCount }`).join(' ')} } }`,
    );
    await eventually(
      async () => {
        n += 1;
        await createPost(`fetch probe ${n}`);
        return within.items.length > 0;
      },
      20_000,
      300,
    );
    expect(within.errors).toEqual([]);
    expect(within.items[0]!.onPostCreated!.c19).toEqual({ totalCount: 0 });
  }, 60_000);
});
