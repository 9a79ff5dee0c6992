import type { Redis } from 'ioredis';

/**
 * A lease in Redis (SET NX PX, renewed and released only by its holder through a compare in
 * Lua): Redis executes each command atomically, which the MongoDB-compatible server does not
 * guarantee for conditional updates.
 */
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export async function acquireLease(redis: Redis, key: string, holder: string, ttlMs: number): Promise<boolean> {
  const renewed = await redis.eval(RENEW, 1, key, holder, String(ttlMs));
  if (renewed === 1) return true;
  return (await redis.set(key, holder, 'PX', ttlMs, 'NX')) === 'OK';
}

export async function releaseLease(redis: Redis, key: string, holder: string): Promise<void> {
  await redis.eval(RELEASE, 1, key, holder);
}
