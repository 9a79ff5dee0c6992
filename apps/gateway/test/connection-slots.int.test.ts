import { Redis } from 'ioredis';
import pino from 'pino';
import { eventually, inOneWindow, stackEnv, uniqueName } from '@platform/testing';
import { createConnectionSlots, type ConnectionSlot } from '../src/limits/connection-slots';

/**
 * WebSocket connections and their subscriptions per client address or account, counted in Redis
 * across replicas (docs/security.md "WebSocket limits"). Each "replica" is an instance of its own
 * on the shared stack's Redis; a dead one is an instance whose connection was cut.
 */
let redis: Redis;
const logger = pino({ level: 'silent' });

beforeAll(() => {
  redis = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  await redis.quit();
});

/** A Redis connection that fails every command at once, as one does while Redis is away. */
async function brokenRedis(): Promise<Redis> {
  const broken = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  await broken.ping();
  broken.disconnect();
  return broken;
}

const subject = () => uniqueName('203.0.113.7');

describe('connections per subject across replicas', () => {
  it('counts two replicas’ connections together: the one past the cap is refused on either, and a release frees its place', async () => {
    const prefix = uniqueName('gwslots');
    const replicaA = createConnectionSlots(redis, { prefix, logger });
    const replicaB = createConnectionSlots(redis, { prefix, logger });
    const who = subject();
    const first = await replicaA(who, 2);
    const second = await replicaB(who, 2);
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(await replicaA(who, 2)).toBeNull();
    expect(await replicaB(who, 2)).toBeNull();
    // Another subject has its own count.
    const other = await replicaB(subject(), 2);
    expect(other).not.toBeNull();
    await first!.release();
    await first!.release(); // once only: a second release frees nothing more
    const third = await replicaB(who, 2);
    expect(third).not.toBeNull();
    expect(await replicaA(who, 2)).toBeNull();
    await Promise.all([second!.release(), third!.release(), other!.release()]);
  });

  it('counts the subscriptions of all the subject’s connections on both replicas; ending one frees its place', async () => {
    const prefix = uniqueName('gwslots');
    const who = subject();
    const onA = (await createConnectionSlots(redis, { prefix, logger })(who, 5))!;
    const onB = (await createConnectionSlots(redis, { prefix, logger })(who, 5))!;
    expect([await onA.addSubscription(3), await onA.addSubscription(3), await onB.addSubscription(3)]).toEqual([
      true,
      true,
      true,
    ]);
    expect(await onB.addSubscription(3)).toBe(false);
    expect(await onA.addSubscription(3)).toBe(false);
    onA.removeSubscription();
    // The end is counted in the background: its place comes back once Redis has it (then taken here, once).
    await eventually(() => onB.addSubscription(3), 5_000);
    expect(await onA.addSubscription(3)).toBe(false);
    // A connection that closes takes its subscriptions with it.
    await onA.release();
    expect(await onB.addSubscription(3)).toBe(true);
    expect(await onA.addSubscription(3)).toBe(false); // released: counts nothing more
    await onB.release();
  });

  it('lets a dead replica’s connections and subscriptions lapse with their lease', async () => {
    const prefix = uniqueName('gwslots');
    const LEASE_MS = 1_000;
    const survivor = createConnectionSlots(redis, { prefix, leaseMs: LEASE_MS, logger });
    // "Still counted" means something only while the dead replica's lease is younger than LEASE_MS:
    // an attempt whose calls took longer is discarded and redone on a fresh subject.
    const { who, dying, whileLive, subscribedWhileLive } = await inOneWindow(
      async ({ who, doomed }) => {
        const dying = await createConnectionSlots(doomed, { prefix, leaseMs: LEASE_MS, logger })(who, 2);
        const dyingSubscribed = await dying?.addSubscription(1);
        // The replica dies: nothing renews or releases its lease any more.
        doomed.disconnect();
        const whileLive = await survivor(who, 2);
        const subscribedWhileLive = await whileLive?.addSubscription(1);
        await whileLive?.release();
        return {
          who,
          dying: dying !== null && dyingSubscribed === true,
          whileLive: whileLive !== null,
          subscribedWhileLive,
        };
      },
      {
        windowMs: LEASE_MS,
        before: async () => {
          const doomed = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: 0, retryStrategy: () => null });
          await doomed.ping();
          return { who: subject(), doomed };
        },
      },
    );
    expect(dying).toBe(true);
    // The dead replica's connection holds one of two places, and its subscription the only one.
    expect(whileLive).toBe(true);
    expect(subscribedWhileLive).toBe(false);
    let held: ConnectionSlot[] = [];
    // Once its lease runs out, both places are free again, and its subscription no longer counts.
    await eventually(async () => {
      for (const slot of held) await slot.release();
      held = [];
      for (let i = 0; i < 2; i += 1) {
        const slot = await survivor(who, 2);
        if (slot) held.push(slot);
      }
      return held.length === 2;
    }, 10_000);
    expect(await held[0]!.addSubscription(1)).toBe(true);
    await Promise.all(held.map((slot) => slot.release()));
  });
});

describe('while Redis fails', () => {
  it('counts on this replica alone, with the same caps, and says so in the log', async () => {
    const errors: string[] = [];
    const recording = pino(
      { level: 'error' },
      { write: (line: string) => void errors.push((JSON.parse(line) as { msg: string }).msg) },
    );
    const open = createConnectionSlots(await brokenRedis(), { prefix: uniqueName('gwslots'), logger: recording });
    const who = subject();
    const first = await open(who, 2);
    const second = await open(who, 2);
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(await open(who, 2)).toBeNull();
    expect(await open(subject(), 2)).not.toBeNull();
    expect(errors).toContain('connection limits: Redis failed; this connection counted on this replica only');
    // Subscriptions too: the cap holds over the subject's connections on this replica.
    expect([
      await first!.addSubscription(2),
      await second!.addSubscription(2),
      await second!.addSubscription(2),
    ]).toEqual([true, true, false]);
    first!.removeSubscription();
    expect(await second!.addSubscription(2)).toBe(true);
    // A release gives the connection's place, and its subscriptions, back.
    await second!.release();
    expect(await first!.addSubscription(2)).toBe(true);
    expect(await open(who, 2)).not.toBeNull();
    expect(await open(who, 2)).toBeNull();
  });
});
