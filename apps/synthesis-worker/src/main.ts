import { createLogger } from '@platform/logger';
import { exitOnBootFailure, runService } from '@platform/service';
import { connectMongo, connectRedis } from '@platform/stores';
import { loadWorkerConfig } from './config';

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const logger = createLogger('synthesis-worker', config.LOG_LEVEL);
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const redis = await connectRedis(config.REDIS_URL);
  await runService({
    name: 'synthesis-worker',
    host: config.HOST,
    port: config.PORT,
    logger,
    checks: {
      mongo: () => mongo.db!.admin().ping(),
      redis: () => redis.ping(),
    },
    mount() {
      // Health endpoints only: work arrives through the BullMQ queue, not HTTP.
    },
    async close() {
      await Promise.allSettled([mongo.close(), redis.quit()]);
    },
  });
}

main().catch(exitOnBootFailure('synthesis-worker'));
