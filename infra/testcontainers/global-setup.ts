/**
 * Jest globalSetup for people with Docker: `TEST_INFRA=containers npm test` runs the tests against
 * throwaway containers (redis:7, mongo:8.0 as the single-node replica set rs0, apache/kafka:3.9.1) instead
 * of the local stack that `node scripts/stack.mjs up` starts. Without TEST_INFRA=containers it does nothing.
 *
 * It sets REDIS_URL, KAFKA_BROKERS and MONGO_URL in process.env; jest starts its workers after
 * globalSetup, so they inherit them (and the harness's stackEnv(), tests/support, prefers the environment).
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
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
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function startRedis(): Promise<StartedTestContainer> {
  return new GenericContainer('redis:7')
    .withExposedPorts(6379)
    .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
    .start();
}

const MONGO_REPLICA_SET = 'rs0';

/**
 * mongosh script, as docker-compose.yml's healthcheck: initiate the replica set if this member has never
 * been (NotYetInitialized; any other error fails), then fail until it is the writable PRIMARY. The member
 * is named as the container sees itself (mongod checks that the name resolves to itself).
 */
const MONGO_INITIATE_UNTIL_PRIMARY = [
  "try { rs.status().ok } catch (e) { if (e.codeName !== 'NotYetInitialized') throw e;",
  `rs.initiate({_id: '${MONGO_REPLICA_SET}', members: [{_id: 0, host: 'localhost:27017'}]}).ok };`,
  "if (!db.hello().isWritablePrimary) throw new Error('not PRIMARY yet'); 'PRIMARY'",
].join(' ');

/**
 * mongod as a single-node replica set, like docker-compose.yml and the local stack: the apps use
 * transactions and change streams, which a standalone mongod refuses. Resolves once the member is PRIMARY.
 */
async function startMongo(): Promise<StartedTestContainer> {
  const container = await new GenericContainer('mongo:8.0')
    .withCommand(['mongod', '--replSet', MONGO_REPLICA_SET, '--bind_ip_all', '--wiredTigerCacheSizeGB', '0.5'])
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .withStartupTimeout(120_000)
    .start();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await container.exec(['mongosh', '--quiet', '--eval', MONGO_INITIATE_UNTIL_PRIMARY]);
    if (result.exitCode === 0) return container;
    if (Date.now() > deadline) {
      await container.stop().catch(() => undefined);
      throw new Error(`mongo: replica set ${MONGO_REPLICA_SET} has no PRIMARY after 60 s: ${result.output.trim()}`);
    }
    await sleep(500);
  }
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
  // directConnection=true, not replicaSet=rs0: the set's only member is configured as localhost:27017, the
  // container's own view, which from this host is not the container (its port is mapped elsewhere, and the
  // engine may be remote). Without directConnection (with or without replicaSet=) the driver reads that name
  // from the member's hello, drops the address it was given and connects there; a direct connection talks
  // only to the address given. It is the PRIMARY, so transactions and change
  // streams work over it as they do through a replica-set URL.
  process.env.MONGO_URL = `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}/?directConnection=true`;
  process.env.KAFKA_BROKERS = `${host}:${kafka.getMappedPort(9092)}`;
}
