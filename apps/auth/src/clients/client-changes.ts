import type { Redis } from 'ioredis';
import type { Model } from 'mongoose';
import type { Logger } from '@platform/logger';
import type { ClientDoc } from './client-model';
import { clientCacheKey, forgetCachedClient } from './clients';

/** Published on every change of a registration: the client's cache key. */
const CLIENT_CHANGED_CHANNEL = 'auth:client-changed';

/**
 * After an update, a secret rotation or a deletion: this replica forgets the client now, and every
 * other replica when the announcement reaches it, so a rotated secret or a removed grant stops working
 * everywhere at once rather than within the cache's lifetime.
 */
export async function announceClientChange(redis: Redis, model: Model<ClientDoc>, clientId: string): Promise<void> {
  const key = clientCacheKey(model, clientId);
  forgetCachedClient(key);
  await redis.publish(CLIENT_CHANGED_CHANNEL, key);
}

/**
 * Forgets announced clients. `subscriber` is a connection of its own (a subscribed Redis connection
 * can do nothing else). After a reconnection, announcements made meanwhile are lost: the whole cache
 * is dropped.
 */
export async function listenForClientChanges(subscriber: Redis, logger: Logger): Promise<void> {
  let connectedBefore = false;
  subscriber.on('ready', () => {
    if (connectedBefore) {
      forgetCachedClient('all');
      logger.warn('client change channel reconnected; client cache cleared');
    }
    connectedBefore = true;
  });
  subscriber.on('message', (channel: string, key: string) => {
    if (channel === CLIENT_CHANGED_CHANNEL) forgetCachedClient(key);
  });
  await subscriber.subscribe(CLIENT_CHANGED_CHANNEL);
  connectedBefore = true;
}
