/**
 * Jest globalSetup for people with Docker: `TEST_INFRA=containers npm test` runs the tests against
 * throwaway containers (redis:7, mongo:7, apache/kafka:3.9.1) instead of the local stack that
 * `node scripts/stack.mjs up` starts. Without TEST_INFRA=containers it does nothing.
 *
 * It sets REDIS_URL, KAFKA_BROKERS and MONGO_URL in process.env; jest starts its workers after
 * globalSetup, so they inherit them (and libs/testing's stackEnv() prefers the environment).
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';

declare global {
  var __TEST_CONTAINERS__: StartedTestContainer[] | undefined;
}

/** A port that is free on this host right now, for Kafka's fixed host binding. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function startRedis(): Promise<StartedTestContainer> {
  return new GenericContainer('redis:7')
    .withExposedPorts(6379)
    .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
    .start();
}

function startMongo(): Promise<StartedTestContainer> {
  return new GenericContainer('mongo:7')
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .start();
}

/**
 * Kafka must advertise an address the tests (on the host) can reach, which has to be known before the
 * broker starts: bind a free host port explicitly and advertise it. The broker talks to itself on a
 * separate in-container listener.
 */
async function startKafka(host: string): Promise<StartedTestContainer> {
  const hostPort = await freePort();
  return new GenericContainer('apache/kafka:3.9.1')
    .withExposedPorts({ container: 9092, host: hostPort })
    .withEnvironment({
      CLUSTER_ID: randomBytes(16).toString('base64url'), // a Kafka Uuid: 16 bytes, base64url
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://:9092,BROKER://:9094,CONTROLLER://:9093',
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://${host}:${hostPort},BROKER://localhost:9094`,
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'BROKER',
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_NUM_PARTITIONS: '3',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .withStartupTimeout(120_000)
    .start();
}

export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_INFRA !== 'containers') return;
  // Where published ports are reachable; 127.0.0.1 for a local Docker engine.
  const host = process.env.TESTCONTAINERS_HOST_OVERRIDE ?? '127.0.0.1';
  const [redis, mongo, kafka] = await Promise.all([startRedis(), startMongo(), startKafka(host)]);
  globalThis.__TEST_CONTAINERS__ = [redis, mongo, kafka];
  process.env.REDIS_URL = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
  process.env.MONGO_URL = `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}`;
  process.env.KAFKA_BROKERS = `${host}:${kafka.getMappedPort(9092)}`;
}
