import { randomUUID } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { IDENTITY_HEADER, signIdentity, type Role } from '@platform/identity';
import { freePort, stackEnv, startApp, uniqueName, type RunningApp } from '@platform/testing';

export const INTERNAL_SECRET = 'content-tests-internal-secret-0123456789';
export const FULL_SCOPE = 'content:read content:write';

export interface RunningContent extends RunningApp {
  db: string;
  topicPrefix: string;
  redisPrefix: string;
  mongo: Connection;
}

/** Starts the built content app on a free port with its own database, Redis prefix and topics. */
export async function startContent(extraEnv: Record<string, string> = {}, shared?: { db: string; topicPrefix: string; redisPrefix: string }): Promise<RunningContent> {
  const port = await freePort();
  const db = shared?.db ?? uniqueName('content');
  const topicPrefix = shared?.topicPrefix ?? `${uniqueName('ct')}.`;
  const redisPrefix = shared?.redisPrefix ?? `${uniqueName('content')}:`;
  const app = await startApp({
    app: 'content',
    env: {
      ...stackEnv(),
      PORT: String(port),
      MONGO_DB: db,
      INTERNAL_SECRET,
      KAFKA_TOPIC_PREFIX: topicPrefix,
      REDIS_PREFIX: redisPrefix,
      AUTH_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
    readyTimeoutMs: 60_000,
  });
  const mongo = mongoose.createConnection(stackEnv().MONGO_URL, { dbName: db });
  await mongo.asPromise();
  return { ...app, db, topicPrefix, redisPrefix, mongo };
}

export async function stopContent(app: RunningContent | undefined, drop = true): Promise<void> {
  if (!app) return;
  const code = await app.stop();
  // A clean SIGTERM drain exits 0; anything else is a shutdown bug worth failing on.
  if (code !== 0) throw new Error(`content exited with ${String(code)} on SIGTERM:\n${app.output().slice(-2000)}`);
  if (drop) await app.mongo.dropDatabase().catch(() => undefined);
  await app.mongo.close();
}

export interface TestUser {
  id: string;
  name: string;
  email: string;
  role: Role;
}

/** Profiles are normally created from auth accounts; tests that do not start auth insert them. */
export async function seedUser(app: RunningContent, partial: Partial<TestUser> & { createdAt?: Date } = {}): Promise<TestUser> {
  const id = partial.id ?? randomUUID().replace(/-/g, '').slice(0, 24);
  const user: TestUser = {
    id,
    name: partial.name ?? `User ${id.slice(0, 6)}`,
    email: partial.email ?? `${id}@example.com`,
    role: partial.role ?? 'USER',
  };
  await app.mongo.collection('users').insertOne({
    _id: user.id as unknown as mongoose.Types.ObjectId,
    name: user.name,
    nameLower: user.name.toLowerCase(),
    email: user.email,
    avatar: null,
    status: 'ACTIVE',
    role: user.role,
    createdAt: partial.createdAt ?? new Date(),
    updatedAt: null,
    updatedAtSort: partial.createdAt ?? new Date(),
    eventIds: [],
    deletedAt: null,
    rev: 1,
  });
  return user;
}

export type Caller = TestUser | 'anonymous' | { id: string; role: Role; scope?: string };

export async function identityHeader(caller: Caller): Promise<Record<string, string>> {
  if (caller === 'anonymous') {
    return { [IDENTITY_HEADER]: await signIdentity({ roles: [], scope: '', method: 'anonymous' }, INTERNAL_SECRET) };
  }
  const scope = 'scope' in caller && caller.scope !== undefined ? caller.scope : FULL_SCOPE;
  return {
    [IDENTITY_HEADER]: await signIdentity({ sub: caller.id, roles: [caller.role], scope, method: 'bearer_jwt', clientId: 'platform' }, INTERNAL_SECRET),
  };
}

export interface ApiResponse {
  status: number;
  body: unknown;
  // Convenience for assertions on JSON objects.
  json: Record<string, unknown>;
  text: string;
}

export async function api(
  app: { url: string },
  method: string,
  path: string,
  options: { caller?: Caller; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...(options.caller ? await identityHeader(options.caller) : {}), ...options.headers };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${app.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, body: parsed, json: (parsed ?? {}) as Record<string, unknown>, text };
}

export async function gql(
  app: { url: string },
  query: string,
  variables: Record<string, unknown> = {},
  caller: Caller = 'anonymous',
): Promise<{ status: number; data: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown>; path?: unknown[] }[] }> {
  const res = await api(app, 'POST', '/graphql', { caller, body: { query, variables } });
  return { status: res.status, ...(res.json as { data: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] }) };
}

/** Polls `check` until it returns a value or the deadline passes. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts the built auth app (real accounts and tokens) sharing content's INTERNAL_SECRET. */
export async function startAuthApp(): Promise<RunningApp & { db: string }> {
  const port = await freePort();
  const db = uniqueName('auth');
  const url = `http://127.0.0.1:${port}`;
  const app = await startApp({
    app: 'auth',
    env: { ...stackEnv(), PORT: String(port), MONGO_DB: db, INTERNAL_SECRET, PUBLIC_URL: url, LOG_LEVEL: 'warn' },
    readyTimeoutMs: 60_000,
  });
  return { ...app, db };
}
