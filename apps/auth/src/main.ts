import { createLogger, requestLogger } from '@platform/logger';
import { exitOnBootFailure, runService } from '@platform/service';
import { connectMongo, connectRedis } from '@platform/stores';
import { loadAuthConfig } from './config';

async function main(): Promise<void> {
  const config = loadAuthConfig();
  const logger = createLogger('auth', config.LOG_LEVEL);
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const redis = await connectRedis(config.REDIS_URL);
  await runService({
    name: 'auth',
    host: config.HOST,
    port: config.PORT,
    logger,
    checks: {
      mongo: () => mongo.db!.admin().ping(),
      redis: () => redis.ping(),
    },
    mount(app) {
      app.use(requestLogger(logger));
    },
    async close() {
      await Promise.allSettled([mongo.close(), redis.quit()]);
    },
  });
}

main().catch(exitOnBootFailure('auth'));
