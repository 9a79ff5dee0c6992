import { createLogger, requestLogger } from '@platform/logger';
import { exitOnBootFailure, runService } from '@platform/service';
import { connectRedis, createKafka, kafkaReady } from '@platform/stores';
import { loadGatewayConfig } from './config';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const redis = await connectRedis(config.REDIS_URL);
  const kafka = createKafka('gateway', config.KAFKA_BROKERS);
  const admin = kafka.admin();
  await admin.connect();
  await runService({
    name: 'gateway',
    host: config.HOST,
    port: config.PORT,
    logger,
    checks: {
      redis: () => redis.ping(),
      kafka: () => kafkaReady(admin),
    },
    mount(app) {
      app.use(requestLogger(logger));
    },
    async close() {
      await Promise.allSettled([redis.quit(), admin.disconnect()]);
    },
  });
}

main().catch(exitOnBootFailure('gateway'));
