import { randomUUID } from 'node:crypto';
import { ClientError, GraphQLClient } from 'graphql-request';
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
export async function startContent(
  extraEnv: Record<string, string> = {},
  shared?: { db: string; topicPrefix: string; redisPrefix: string },
): Promise<RunningContent> {
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
export async function seedUser(
  app: RunningContent,
  partial: Partial<TestUser> & { createdAt?: Date } = {},
): Promise<TestUser> {
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
    [IDENTITY_HEADER]: await signIdentity(
      { sub: caller.id, roles: [caller.role], scope, method: 'bearer_jwt', clientId: 'platform' },
      INTERNAL_SECRET,
    ),
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
  const headers: Record<string, string> = {
    ...(options.caller ? await identityHeader(options.caller) : {}),
    ...options.headers,
  };
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

export interface GqlResult {
  status: number;
  data: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown>; path?: unknown[] }[];
}

/**
 * One GraphQL operation through graphql-request (a GraphQL client, as the issue asks), with
 * errorPolicy "all" so partial data and errors both come back. graphql-request throws a
 * ClientError when the HTTP status is not 2xx or `data` is null; its `response` still carries the
 * status, data and errors, which is what the tests assert on.
 */
export async function gql(
  app: { url: string },
  query: string,
  variables: Record<string, unknown> = {},
  caller: Caller = 'anonymous',
): Promise<GqlResult> {
  const client = new GraphQLClient(`${app.url}/graphql`, {
    headers: await identityHeader(caller),
    errorPolicy: 'all',
    fetch: globalThis.fetch,
  });
  try {
    const res = await client.rawRequest<Record<string, unknown>>(query, variables);
    return {
      status: res.status,
      data: res.data ?? null,
      ...(res.errors ? { errors: res.errors as unknown as GqlResult['errors'] } : {}),
    };
  } catch (err) {
    if (!(err instanceof ClientError)) throw err;
    const { status, data, errors } = err.response as {
      status: number;
      data?: Record<string, unknown> | null;
      errors?: GqlResult['errors'];
    };
    return { status, data: data ?? null, ...(errors ? { errors } : {}) };
  }
}

/** Polls `check` until it returns a value or the deadline passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts the built auth app (real accounts and tokens) sharing content's INTERNAL_SECRET. */
export async function startAuthApp(extraEnv: Record<string, string> = {}): Promise<RunningApp & { db: string }> {
  const port = await freePort();
  const db = uniqueName('auth');
  const url = `http://127.0.0.1:${port}`;
  const app = await startApp({
    app: 'auth',
    env: {
      ...stackEnv(),
      PORT: String(port),
      MONGO_DB: db,
      INTERNAL_SECRET,
      PUBLIC_URL: url,
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
    readyTimeoutMs: 60_000,
  });
  return { ...app, db };
}

export interface Edge {
  auth: RunningApp & { db: string };
  content: RunningContent;
  gateway: RunningApp;
  stop: () => Promise<void>;
}

/**
 * auth, content and the gateway in front of content, as clients reach the service: tokens issued
 * by auth (issuer and audience the gateway's public URL) are verified by the gateway, which
 * forwards the caller to content in the signed identity header.
 */
export async function startEdge(): Promise<Edge> {
  const gatewayPort = await freePort();
  const publicUrl = `http://127.0.0.1:${gatewayPort}`;
  const auth = await startAuthApp({ PUBLIC_URL: publicUrl });
  const content = await startContent({ AUTH_URL: auth.url });
  const gateway = await startApp({
    app: 'gateway',
    env: {
      ...stackEnv(),
      PORT: String(gatewayPort),
      INTERNAL_SECRET,
      PUBLIC_URL: publicUrl,
      AUTH_URL: auth.url,
      CONTENT_URL: content.url,
      KAFKA_TOPIC_PREFIX: content.topicPrefix,
      RATE_LIMIT_PREFIX: uniqueName('ctgw'),
      SPEECH_MONGO_DB: uniqueName('ctspeech'),
      // A test's stop does not wait out a WebSocket it left open (docs/gateway.md, "Shutdown").
      SHUTDOWN_GRACE_MS: '3000',
      // The edge's plan limits (free: 3 rps) are not what these tests are about.
      PLAN_LIMITS_JSON: JSON.stringify({
        free: { rps: 200, concurrency: 20 },
        anonymous: { rps: 200, concurrency: 20 },
      }),
      LOG_LEVEL: 'warn',
    },
    readyTimeoutMs: 60_000,
  });
  return {
    auth,
    content,
    gateway,
    async stop() {
      await gateway.stop();
      await stopContent(content);
      await auth.stop();
    },
  };
}

/** Sends a request with `Authorization: Bearer <token>` (or none) and parses the JSON answer. */
export async function bearer(
  base: { url: string },
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<ApiResponse> {
  return api(base, method, path, {
    ...(body !== undefined ? { body } : {}),
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}
