import { Kafka, logLevel, type Admin, type logCreator } from 'kafkajs';

/** The part of the app's logger kafkajs's lines go to (pino's signature). */
export interface KafkaLogSink {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

/**
 * kafkajs's own lines through the app's logger, so they are JSON lines like every other (with the
 * service's name and the same level names) instead of kafkajs's console format.
 */
export function kafkaLogCreator(sink: KafkaLogSink): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
      const entry = { ...fields, kafkajs: namespace };
      if (level === logLevel.ERROR) sink.error(entry, message);
      else if (level === logLevel.WARN) sink.warn(entry, message);
      else if (level === logLevel.INFO) sink.info(entry, message);
      else sink.debug(entry, message);
    };
}

export function createKafka(clientId: string, brokers: string[], logger?: KafkaLogSink): Kafka {
  return new Kafka({
    clientId,
    brokers,
    logLevel: logLevel.ERROR,
    ...(logger ? { logCreator: kafkaLogCreator(logger) } : {}),
    connectionTimeout: 3000,
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 5000 },
  });
}

/** Readiness: the broker answers a metadata request. */
export async function kafkaReady(admin: Admin): Promise<void> {
  await admin.describeCluster();
}
