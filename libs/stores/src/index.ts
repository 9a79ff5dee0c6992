export { connectMongo, isStoreUnavailable, mongoReadiness } from './mongo';
export { connectRedis } from './redis';
export { createKafka, kafkaReady } from './kafka';
