import { parse } from 'graphql';
import pino from 'pino';
import { buildContentEvent } from '@platform/events';
import { postSnapshot as post } from '@platform/testing';
import { SubscriptionHub } from '../src/subscriptions/hub';
import {
  bookSubscription,
  EventFetchAllowance,
  type SubscriptionLimits,
} from '../src/subscriptions/subscription-budget';
import { buildSubscriptionSchema } from '../src/subscriptions/subscription-schema';
import type { Viewer } from '../src/subscriptions/viewer';
import { subscribeRecorded, takeNext as take } from './hub-subscriber';

const schema = buildSubscriptionSchema();
const viewer: Viewer = { sub: 'acc-2', roles: ['USER'] };
const limits: SubscriptionLimits = { maxCost: 100, maxConnectionCost: 250, maxFetchesPerEvent: 3 };
const measure = (cost: number) => ({ depth: 2, cost, aliases: 0 });

/** `onPostCreated` selecting `c<from>`…`c<to - 1>`: one nested fetch each (distinct arguments). */
const counts = (from: number, to: number, extra = '') =>
  `subscription { onPostCreated { ${extra} ${Array.from({ length: to - from }, (_, i) => `c${from + i}: comments(first: ${from + i + 1}) { totalCount }`).join(' ')} } }`;

function setup() {
  const fetchField = jest.fn(async (query: string): Promise<unknown> => {
    const alias = /(c\d+): comments/.exec(query)?.[1] ?? 'none';
    return { [alias]: { totalCount: 7 } };
  });
  const hub = new SubscriptionHub({ schema, fetchField, logger: pino({ level: 'silent' }), capacity: 10 });
  const subscribe = (query: string, ...fetches: EventFetchAllowance[]) =>
    subscribeRecorded(hub, { document: parse(query), viewer, ...(fetches.length > 0 ? { fetches } : {}) });
  return { hub, fetchField, subscribe };
}

describe('bookSubscription', () => {
  it('refuses a subscription over its own budget, then one over the connection budget; completed ones are released', () => {
    const costs = new Map<string, number>();
    const active = new Set<string>();
    const book = (id: string, cost: number) => {
      active.add(id);
      const error = bookSubscription(costs, (other) => active.has(other), id, measure(cost), limits);
      if (error) active.delete(id);
      return error;
    };
    expect(book('a', 101)?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', cost: 101, maxCost: 100 });
    expect(book('a', 100)).toBeNull();
    expect(book('b', 100)).toBeNull();
    expect(book('c', 51)?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', cost: 251, maxCost: 250 });
    expect(book('c', 50)).toBeNull();
    active.delete('a');
    expect(book('d', 100)).toBeNull();
    expect([...costs.keys()].sort()).toEqual(['b', 'c', 'd']);
  });
});

describe('nested fetches per event and connection', () => {
  it("stops a connection's subscriptions at their shared allowance, per event", async () => {
    const { hub, fetchField, subscribe } = setup();
    const allowance = new EventFetchAllowance(3);
    const first = subscribe(counts(0, 2), allowance);
    const second = subscribe(counts(2, 4), allowance);
    await hub.publish(buildContentEvent('post.created', post(1)));
    const results = [take(first), take(second)];
    expect(fetchField).toHaveBeenCalledTimes(3);
    expect(results[0]).toEqual({ data: { onPostCreated: { c0: { totalCount: 7 }, c1: { totalCount: 7 } } } });
    expect(results[1]!.data).toBeNull();
    expect(results[1]!.errors?.[0]).toMatchObject({
      path: ['onPostCreated', 'c3'],
      extensions: { code: 'QUERY_TOO_COMPLEX', maxFetches: 3 },
    });
    // The next event has a fresh allowance.
    await hub.publish(buildContentEvent('post.created', post(2)));
    take(first);
    take(second);
    expect(fetchField).toHaveBeenCalledTimes(6);
  });

  it('a fetch another subscription already made for the event costs nothing', async () => {
    const { hub, fetchField, subscribe } = setup();
    const generous = subscribe(counts(0, 3, 'title'), new EventFetchAllowance(5));
    const tight = subscribe(counts(0, 3), new EventFetchAllowance(1));
    await hub.publish(buildContentEvent('post.created', post(3)));
    expect(take(generous).errors).toBeUndefined();
    expect(take(tight)).toEqual({
      data: { onPostCreated: { c0: { totalCount: 7 }, c1: { totalCount: 7 }, c2: { totalCount: 7 } } },
    });
    expect(fetchField).toHaveBeenCalledTimes(3);
  });

  it("stops an address's connections together at the address's allowance, each within its own", async () => {
    const { hub, fetchField, subscribe } = setup();
    const address = new EventFetchAllowance(3, 'address');
    // Two connections of one address, each allowed 2: together they would make 4 fetches.
    const first = subscribe(counts(0, 2), new EventFetchAllowance(2), address);
    const second = subscribe(counts(2, 4), new EventFetchAllowance(2), address);
    await hub.publish(buildContentEvent('post.created', post(4)));
    expect(fetchField).toHaveBeenCalledTimes(3);
    expect(take(first).errors).toBeUndefined();
    expect(take(second).errors?.[0]).toMatchObject({
      message: "this address's subscriptions need more than 3 nested fetches for one event",
      path: ['onPostCreated', 'c3'],
      extensions: { code: 'QUERY_TOO_COMPLEX', maxFetches: 3 },
    });
  });
});
