import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis client that fails commands fast while disconnected instead of queueing them forever,
 * so a request never hangs on a Redis outage; it keeps reconnecting in the background.
 */
export async function connectRedis(url: string, options: RedisOptions = {}): Promise<Redis> {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 2,
    connectTimeout: 5000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    ...options,
  });
  await client.connect();
  return client;
}
