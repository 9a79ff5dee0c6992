import { createLogger } from '@platform/logger';
import { exitOnBootFailure, runService } from '@platform/service';
import { connectMongo, connectRedis, mongoReadiness } from '@platform/stores';
import { mountAuth } from './app';
import { requestLog } from './http/request-log';
import { loadAuthConfig } from './config';
import { signingKeys } from './keys/signing-keys';
import { authModels } from './stores';

async function main(): Promise<void> {
  const config = loadAuthConfig();
  const logger = createLogger('auth', config.LOG_LEVEL);
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const redis = await connectRedis(config.REDIS_URL);
  const models = await authModels(mongo);
  const keys = signingKeys(mongo, config.INTERNAL_SECRET, { rotateAfterSeconds: config.KEY_ROTATION_SECONDS, cacheSeconds: config.KEY_CACHE_SECONDS, activationDelaySeconds: config.KEY_ACTIVATION_DELAY });
  await keys.current(); // creates the first key at first boot, before the app says it is ready
  await runService({
    name: 'auth',
    host: config.HOST,
    port: config.PORT,
    logger,
    checks: {
      mongo: () => mongoReadiness(mongo),
      redis: () => redis.ping(),
    },
    mount(app) {
      // Token responses are no-store: an ETag (a hash of every body) buys nothing.
      app.set('etag', false);
      app.use(requestLog(logger));
      mountAuth(app, { config, logger, redis, keys, ...models });
    },
    async close() {
      await Promise.allSettled([mongo.close(), redis.quit()]);
    },
  });
}

main().catch(exitOnBootFailure('auth'));
