import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, freePort, type StackEnv } from '@platform/testing';
import { mainStack, runStack } from '../../e2e/stack-runner';

export type StackPart = 'redis' | 'kafka' | 'mongo';

export interface PrivateStack {
  env: StackEnv;
  /** Stops one part cleanly (SIGTERM: Redis writes its append-only file, Kafka shuts down in order, mongod checkpoints) and waits until its process is gone. */
  stop(part: StackPart): Promise<void>;
  /** `scripts/stack.mjs up`: starts what is not running and waits until every part answers a real request. */
  start(): Promise<void>;
  down(): Promise<void>;
}

/**
 * Redis, Kafka and a mongod replica set of the test's own (scripts/stack.mjs with its own STACK_DIR and
 * ports), so a test may restart them; the shared stack in `.stack/` is never touched. The shared stack's
 * Kafka jars and mongod binary are linked in (read only) instead of fetched again.
 */
export async function startPrivateStack(prefix: string): Promise<PrivateStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const link = (target: string, at: string) => {
    if (!fs.existsSync(target)) return;
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(target, at);
  };
  link(path.join(mainStack, 'kafka', 'libs'), path.join(dir, 'kafka', 'libs'));
  for (const bin of fs.existsSync(path.join(mainStack, 'bin')) ? fs.readdirSync(path.join(mainStack, 'bin')) : []) {
    if (bin.startsWith('mongod-')) link(path.join(mainStack, 'bin', bin), path.join(dir, 'bin', bin));
  }
  const ports = {
    redis: await freePort(),
    kafka: await freePort(),
    controller: await freePort(),
    mongo: await freePort(),
  };
  const vars = {
    STACK_DIR: dir,
    // Empty: start our own of each part, whatever the environment names.
    REDIS_URL: '',
    KAFKA_BROKERS: '',
    MONGO_URL: '',
    STACK_REDIS_PORT: String(ports.redis),
    STACK_KAFKA_PORT: String(ports.kafka),
    STACK_KAFKA_CONTROLLER_PORT: String(ports.controller),
    STACK_MONGO_PORT: String(ports.mongo),
    STACK_MONGO_CACHE_GB: '0.25',
  };
  const up = async () => {
    const result = await runStack(['up'], vars);
    if (result.code !== 0) throw new Error(`private stack did not start:\n${result.output}`);
  };
  await up();
  const pidOf = (part: StackPart) => Number(fs.readFileSync(path.join(dir, 'pids', `${part}.pid`), 'utf8').trim());
  return {
    env: {
      REDIS_URL: `redis://127.0.0.1:${ports.redis}`,
      KAFKA_BROKERS: `127.0.0.1:${ports.kafka}`,
      MONGO_URL: `mongodb://127.0.0.1:${ports.mongo}/?replicaSet=rs0`,
    },
    async stop(part) {
      const pid = pidOf(part);
      process.kill(pid, 'SIGTERM');
      // Kafka's controlled shutdown takes a while on a loaded machine.
      await eventually(
        () => !fs.existsSync(`/proc/${pid}`) || fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z',
        120_000,
        100,
      );
    },
    start: up,
    async down() {
      await runStack(['down'], vars);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
