export { connectMongo, isStoreUnavailable, mongoReadiness, retryWhileStoreUnavailable } from './mongo';
export { storeReadiness } from './store-readiness';
export { connectRedis, isRedisUnavailable } from './redis';
export { createKafka, kafkaReady, type KafkaLogSink } from './kafka';
export { escapeRegExp } from './escape-regexp';
export { redisScript, type ScriptArg } from './redis-script';
