import { Redis } from 'ioredis';
import { stackEnv, uniqueName } from '@platform/testing';

describe('Redis from the local stack', () => {
  const redis = new Redis(stackEnv().REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  afterAll(() => redis.quit());

  it('answers PING and round-trips a value with a TTL', async () => {
    await redis.connect();
    expect(await redis.ping()).toBe('PONG');
    const key = uniqueName('it:redis');
    await redis.set(key, 'héllo', 'EX', 30);
    expect(await redis.get(key)).toBe('héllo');
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30);
    expect(await redis.del(key)).toBe(1);
    expect(await redis.get(key)).toBeNull();
  });
});
