// While the MongoDB replica set has no primary, every app's readiness fails and requests get their
// interface's 503 shape (no 500, no hang past the driver's server-selection bound); when a primary
// returns they recover by themselves. The set is a mongod of the test's own (scripts/stack.mjs in a
// separate STACK_DIR), stepped down and frozen, then unfrozen.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mongoose from 'mongoose';
import { IDENTITY_HEADER, signIdentity } from '@platform/identity';
import { eventually, freePort, stackEnv, startApp, type RunningApp } from '@platform/testing';
import { runStack, shareWheel } from './stack-runner';

const SECRET = 'no-primary-tests-internal-secret-0123456789';
let dir: string;
let stackVars: Record<string, string>;
let mongoUrl: string;
let directUrl: string;
let content: RunningApp;
let auth: RunningApp;

async function adminCommand(command: Record<string, unknown>): Promise<unknown> {
  // A direct connection reaches the member whatever its state (no primary needed).
  const connection = await mongoose.createConnection(directUrl, { serverSelectionTimeoutMS: 10_000 }).asPromise();
  try {
    return await connection.db!.admin().command(command);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

async function readiness(app: RunningApp): Promise<{ status: number; body: { checks?: Record<string, string> } }> {
  const res = await fetch(`${app.url}/readyz`);
  return { status: res.status, body: (await res.json()) as { checks?: Record<string, string> } };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-primary-'));
  shareWheel(dir);
  const port = await freePort();
  const { REDIS_URL, KAFKA_BROKERS } = stackEnv();
  stackVars = {
    STACK_DIR: dir,
    REDIS_URL,
    KAFKA_BROKERS,
    MONGO_URL: '',
    STACK_MONGO_PORT: String(port),
    STACK_MONGO_CACHE_GB: '0.25',
  };
  const up = await runStack(['up'], stackVars);
  if (up.code !== 0) throw new Error(`own mongod did not start:\n${up.output}`);
  mongoUrl = `mongodb://127.0.0.1:${port}/?replicaSet=rs0`;
  directUrl = `mongodb://127.0.0.1:${port}/?directConnection=true`;
  const common = { REDIS_URL, KAFKA_BROKERS, MONGO_URL: mongoUrl, INTERNAL_SECRET: SECRET, LOG_LEVEL: 'warn' };
  [content, auth] = await Promise.all([
    freePort().then((p) =>
      startApp({
        app: 'content',
        env: {
          ...common,
          PORT: String(p),
          MONGO_DB: 'nop_content',
          KAFKA_TOPIC_PREFIX: `nop${p}.`,
          REDIS_PREFIX: `nop${p}:`,
          AUTH_URL: 'http://127.0.0.1:9',
        },
        readyTimeoutMs: 60_000,
      }),
    ),
    freePort().then((p) =>
      startApp({
        app: 'auth',
        env: {
          ...common,
          PORT: String(p),
          MONGO_DB: 'nop_auth',
          PUBLIC_URL: `http://127.0.0.1:${p}`,
          REDIS_PREFIX: `nop${p}:`,
        },
        readyTimeoutMs: 60_000,
      }),
    ),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.allSettled([content?.stop(), auth?.stop()]);
  await adminCommand({ replSetFreeze: 0 }).catch(() => undefined);
  await runStack(['down'], stackVars);
  fs.rmSync(dir, { recursive: true, force: true });
}, 120_000);

it('readiness names mongod, fails without a primary, requests get 503 shapes, and all recover by themselves', async () => {
  for (const app of [content, auth]) {
    const ready = await readiness(app);
    expect(ready.status).toBe(200);
    expect(ready.body.checks?.mongo).toMatch(/^mongod \d+\.\d+\.\d+, replica set rs0, primary$/);
  }

  // No primary: step down (the connection it arrives on is closed by the step-down) and stay frozen.
  await adminCommand({ replSetStepDown: 600, secondaryCatchUpPeriodSecs: 0, force: true }).catch(() => undefined);
  await eventually(
    async () => ((await adminCommand({ hello: 1 })) as { isWritablePrimary?: boolean }).isWritablePrimary === false,
    60_000,
    200,
  );

  for (const app of [content, auth]) {
    await eventually(async () => (await readiness(app)).status === 503, 60_000, 200);
    const notReady = await readiness(app);
    expect(notReady.status).toBe(503);
    expect(notReady.body.checks?.mongo).not.toMatch(/primary$/);
  }

  const identity = await signIdentity(
    { sub: 'reader', roles: ['USER'], scope: 'content:read content:write', method: 'bearer_jwt' },
    SECRET,
  );
  const rest = await fetch(`${content.url}/api/v1/posts?limit=5`, { headers: { [IDENTITY_HEADER]: identity } });
  expect(rest.status).toBe(503);
  expect(await rest.json()).toEqual({
    error: { code: 503, message: expect.stringMatching(/temporarily unavailable/) },
  });

  const gql = await fetch(`${content.url}/graphql`, {
    method: 'POST',
    headers: { [IDENTITY_HEADER]: identity, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ posts(first: 5) { edges { node { title } } } }' }),
  });
  const gqlBody = (await gql.json()) as { errors?: { extensions?: { code?: string } }[] };
  expect(gqlBody.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');

  const token = await fetch(`${auth.url}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from('someclient:somesecret').toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  expect(token.status).toBe(503);
  expect(token.headers.get('cache-control')).toBe('no-store');
  expect(await token.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });

  // The primary returns: nothing is restarted, the apps answer again on their own.
  await adminCommand({ replSetFreeze: 0 });
  for (const app of [content, auth]) {
    await eventually(async () => (await readiness(app)).status === 200, 90_000, 200);
  }
  const again = await fetch(`${content.url}/api/v1/posts?limit=5`, { headers: { [IDENTITY_HEADER]: identity } });
  expect(again.status).toBe(200);
}, 300_000);
