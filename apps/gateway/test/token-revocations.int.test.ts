import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger } from '@platform/logger';
import { stackEnv } from '@platform/testing';
import { createRevocationWatch, listenForTokenRevocations, redisRevocationCheck, TOKEN_REVOKED_CHANNEL } from '../src/auth/token-revocations';

let redis: Redis;
let subscriber: Redis;
let listening: { stop: () => void };
const watch = createRevocationWatch(async (jtis) => check(jtis));
let check: (jtis: string[]) => Promise<boolean[]>;

beforeAll(async () => {
  redis = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  subscriber = new Redis(stackEnv().REDIS_URL);
  check = redisRevocationCheck(redis);
  listening = await listenForTokenRevocations(subscriber, watch, { intervalMs: 200, logger: createLogger('test', 'silent') });
});

afterAll(async () => {
  listening.stop();
  await Promise.all([redis.quit(), subscriber.quit()]);
});

function revokedAt(jti: string): Promise<number> {
  return new Promise((resolve) => watch.watch(jti, () => resolve(Date.now())));
}

describe('token revocations from Redis (as auth records and announces them)', () => {
  it('fires on the notice auth publishes on auth:revocations', async () => {
    const jti = randomUUID();
    const fired = revokedAt(jti);
    const published = Date.now();
    await redis.set(`auth:revoked:jti:${jti}`, '1', 'EX', 60);
    await redis.publish(TOKEN_REVOKED_CHANNEL, jti);
    expect((await fired) - published).toBeLessThan(150);
  });

  it('fires within the sweep interval when the notice was lost (the key alone)', async () => {
    const jti = randomUUID();
    const fired = revokedAt(jti);
    const set = Date.now();
    await redis.set(`auth:revoked:jti:${jti}`, '1', 'EX', 60);
    expect((await fired) - set).toBeLessThan(600);
  });

  it('answers per token, in order', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await redis.set(`auth:revoked:jti:${a}`, '1', 'EX', 60);
    expect(await check([a, b])).toEqual([true, false]);
    expect(await check([])).toEqual([]);
  });
});
