import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger } from '@platform/logger';
import { stackEnv } from '@platform/testing';
import {
  createRevocationWatch,
  listenForTokenRevocations,
  redisRevocationCheck,
  TOKEN_REVOKED_CHANNEL,
  type RevocationWatch,
} from '../src/auth/token-revocations';

const logger = createLogger('test', 'silent');
/** Longer than any test here: a listener with this interval never sweeps while it runs. */
const NEVER_MS = 3_600_000;

let redis: Redis;
let subscriber: Redis;
let listening: { stop: () => void };
let check: (jtis: string[]) => Promise<boolean[]>;
/** Every sweep of `watch`, in the order they started: what it asked and (once answered) what Redis said. */
const sweeps: { asked: string[]; answers?: boolean[] }[] = [];
const watch = createRevocationWatch(async (jtis) => {
  const sweep: (typeof sweeps)[number] = { asked: jtis };
  sweeps.push(sweep);
  sweep.answers = await check(jtis);
  return sweep.answers;
});

beforeAll(async () => {
  redis = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  subscriber = new Redis(stackEnv().REDIS_URL);
  check = redisRevocationCheck(redis);
  listening = await listenForTokenRevocations(subscriber, watch, { intervalMs: 200, logger });
});

afterAll(async () => {
  listening.stop();
  await Promise.all([redis.quit(), subscriber.quit()]);
});

function revoked(on: RevocationWatch, jti: string): Promise<void> {
  return new Promise((resolve) => on.watch(jti, resolve));
}

describe('token revocations from Redis (as auth records and announces them)', () => {
  it('fires on the notice auth publishes on auth:revocations', async () => {
    // A watch whose listener never sweeps: only the notice can fire it.
    const noticesOnly = createRevocationWatch(redisRevocationCheck(redis));
    const ownSubscriber = new Redis(stackEnv().REDIS_URL);
    const listener = await listenForTokenRevocations(ownSubscriber, noticesOnly, { intervalMs: NEVER_MS, logger });
    try {
      const jti = randomUUID();
      const fired = revoked(noticesOnly, jti);
      await redis.set(`auth:revoked:jti:${jti}`, '1', 'EX', 60);
      await redis.publish(TOKEN_REVOKED_CHANNEL, jti);
      await fired;
      expect(noticesOnly.size()).toBe(0);
    } finally {
      listener.stop();
      await ownSubscriber.quit();
    }
  });

  it('fires within the sweep interval when the notice was lost (the key alone): the first sweep after the key is written catches it', async () => {
    const jti = randomUUID();
    const fired = revoked(watch, jti);
    await redis.set(`auth:revoked:jti:${jti}`, '1', 'EX', 60);
    // Sweeps from here on began after the key existed (one sweep runs at a time).
    const afterWrite = sweeps.length;
    await fired;
    // No notice was published: a sweep fired it. None that began after the write missed it, so it
    // fired within one sweep interval of the write, however slow the machine.
    const asked = sweeps.slice(afterWrite).filter((s) => s.asked.includes(jti));
    expect(asked.map((s) => s.answers?.[s.asked.indexOf(jti)])).toEqual(asked.length === 0 ? [] : [true]);
    expect(watch.size()).toBe(0);
  });

  it('answers per token, in order', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await redis.set(`auth:revoked:jti:${a}`, '1', 'EX', 60);
    expect(await check([a, b])).toEqual([true, false]);
    expect(await check([])).toEqual([]);
  });
});
