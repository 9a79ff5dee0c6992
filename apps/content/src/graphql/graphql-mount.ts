import type { Express } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';
import type { VersionedCache } from '../cache/versioned-cache';
import type { ContentDeps } from '../domain/deps';

export interface GraphQLMountOptions {
  deps: ContentDeps;
  redis: Redis;
  cache: VersionedCache;
  redisPrefix: string;
  logger: Logger;
}

export async function graphqlMount(_options: GraphQLMountOptions): Promise<{ mount: (app: Express) => void; stop: () => Promise<void> }> {
  return { mount: () => undefined, stop: async () => undefined };
}
