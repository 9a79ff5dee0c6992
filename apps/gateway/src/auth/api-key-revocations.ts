import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';
import type { ApiKeyResolver } from './api-key-cache';

/** Channel on which auth publishes the id of every revoked API key (docs/architecture.md). */
const API_KEY_REVOKED_CHANNEL = 'auth:api-key-revoked';

/**
 * Clears revoked keys from this replica's cache as soon as auth announces them. Pub/sub has no
 * replay, so after the subscriber reconnects the whole cache is dropped: a message missed while
 * disconnected cannot leave a revoked key working past the reconnect.
 */
export async function listenForApiKeyRevocations(
  subscriber: Redis,
  resolver: ApiKeyResolver,
  logger: Logger,
): Promise<void> {
  let connectedBefore = false;
  subscriber.on('ready', () => {
    if (connectedBefore) {
      resolver.clear();
      logger.warn('revocation channel reconnected; API key cache cleared');
    }
    connectedBefore = true;
  });
  subscriber.on('message', (channel: string, keyId: string) => {
    if (channel === API_KEY_REVOKED_CHANNEL) resolver.revoke(keyId);
  });
  await subscriber.subscribe(API_KEY_REVOKED_CHANNEL);
  connectedBefore = true;
}
