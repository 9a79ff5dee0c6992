import { Redis } from 'ioredis';
import { stackEnv, uniqueName } from '@platform/testing';
import { redisScript } from '../src';

let redis: Redis;
const key = uniqueName('redis-script');

beforeAll(() => {
  redis = new Redis(stackEnv().REDIS_URL);
});

afterAll(async () => {
  await redis.del(key);
  redis.disconnect();
});

describe('redisScript', () => {
  const incrBy = redisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])");

  it('runs a script the server has never seen (NOSCRIPT, then EVAL), and by its SHA-1 afterwards', async () => {
    await redis.script('FLUSH');
    const sent: string[] = [];
    const monitor = await redis.monitor();
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[2] === '1' && args[3] === key) sent.push(String(args[0]).toLowerCase());
    });
    try {
      expect(await incrBy(redis, [key], [2])).toBe(2);
      expect(await incrBy(redis, [key], [3])).toBe(5);
      // The MONITOR feed trails the replies: wait for the three commands it must show.
      while (sent.length < 3) await new Promise((resolve) => monitor.once('monitor', resolve));
      expect(sent).toEqual(['evalsha', 'eval', 'evalsha']);
    } finally {
      monitor.disconnect();
    }
  });

  it('passes a script error through instead of retrying it', async () => {
    const failing = redisScript("return redis.call('NOSUCHCOMMAND')");
    await expect(failing(redis, [], [])).rejects.toThrow(/Unknown Redis command|unknown command/i);
  });
});
