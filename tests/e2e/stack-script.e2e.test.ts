import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, stackEnv } from '@platform/testing';

const script = path.join(__dirname, '..', '..', 'scripts', 'stack.mjs');

function runStack(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

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
    fs.writeFileSync(path.join(bin, 'redis-server'), '#!/bin/sh\necho "fake redis refusing to start" >&2\nexit 3\n', { mode: 0o755 });
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
