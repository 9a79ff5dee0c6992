export { connectMongo, isStoreUnavailable, mongoReadiness } from './mongo';
export { connectRedis } from './redis';
export { createKafka, kafkaReady, type KafkaLogSink } from './kafka';
export { escapeRegExp } from './escape-regexp';
export { redisScript, type ScriptArg } from './redis-script';
