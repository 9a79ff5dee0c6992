import { createLogger, requestLogger } from '@platform/logger';
import { exitOnBootFailure, runService } from '@platform/service';
import { connectMongo, connectRedis, createKafka, kafkaReady } from '@platform/stores';
import { loadContentConfig } from './config';

async function main(): Promise<void> {
  const config = loadContentConfig();
  const logger = createLogger('content', config.LOG_LEVEL);
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const redis = await connectRedis(config.REDIS_URL);
  const kafka = createKafka('content', config.KAFKA_BROKERS);
  const admin = kafka.admin();
  await admin.connect();
  await runService({
    name: 'content',
    host: config.HOST,
    port: config.PORT,
    logger,
    checks: {
      mongo: () => mongo.db!.admin().ping(),
      redis: () => redis.ping(),
      kafka: () => kafkaReady(admin),
    },
    mount(app) {
      app.use(requestLogger(logger));
    },
    async close() {
      await Promise.allSettled([mongo.close(), redis.quit(), admin.disconnect()]);
    },
  });
}

main().catch(exitOnBootFailure('content'));
