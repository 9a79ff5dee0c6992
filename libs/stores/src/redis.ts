import { Redis, ReplyError, type RedisOptions } from 'ioredis';

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

/** Replies of a Redis that is there but cannot serve now: loading its data after a restart, a read-only replica, failing over. */
const UNAVAILABLE_REPLY = /^(LOADING|READONLY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);

/**
 * True when a Redis command failed because Redis cannot be reached or cannot serve yet (restarting,
 * loading its append-only file, failing over): an outage to retry after, not a bug. The client made by
 * `connectRedis` fails a command with `MaxRetriesPerRequestError` once its reconnection attempts for it
 * are spent, or with "Connection is closed." when the connection drops under it.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (
    err.name === 'MaxRetriesPerRequestError' ||
    err.message === 'Connection is closed.' ||
    err.message.startsWith("Stream isn't writeable")
  )
    return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return err instanceof (ReplyError as unknown as new () => Error) && UNAVAILABLE_REPLY.test(err.message);
}
