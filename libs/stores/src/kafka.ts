import { Kafka, logLevel, type Admin } from 'kafkajs';

export function createKafka(clientId: string, brokers: string[]): Kafka {
  return new Kafka({
    clientId,
    brokers,
    logLevel: logLevel.ERROR,
    connectionTimeout: 3000,
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 5000 },
  });
}

/** Readiness: the broker answers a metadata request. */
export async function kafkaReady(admin: Admin): Promise<void> {
  await admin.describeCluster();
}
