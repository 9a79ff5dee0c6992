import type { Connection } from 'mongoose';
import type { Redis } from 'ioredis';
import { mongoReadiness } from './mongo';

/**
 * The `/readyz` checks of an app that keeps its data in MongoDB and Redis: each must answer for the
 * app to take traffic. Named `mongo` and `redis` in the readiness answer (docs/operations.md).
 */
export function storeReadiness(
  mongo: Connection,
  redis: Redis,
): { mongo: () => Promise<string>; redis: () => Promise<string> } {
  return {
    mongo: () => mongoReadiness(mongo),
    redis: () => redis.ping(),
  };
}
