import { randomUUID } from 'node:crypto';
import { freePort, stackEnv, startApp, uniqueName, type RunningApp } from '@platform/testing';
import { checkSpeechResponses } from '../contract/speech-responses';

export const INTERNAL_SECRET = 'gateway-e2e-internal-secret-0123456789abcdef';

export interface Platform {
  auth: RunningApp;
  content: RunningApp;
  gateways: RunningApp[];
  publicUrl: string;
  authDb: string;
  topicPrefix: string;
  rateLimitPrefix: string;
  /** Environment the gateways were started with (to start more, or restart one). */
  gatewayEnv: (port: number) => Record<string, string>;
  /** The synthesis workers `speechWorkers` asked for (none otherwise), and those `startWorker` added. */
  workers: RunningApp[];
  /**
   * One more synthesis worker on the platform's queue, key prefix and speech database, with
   * `speechWorkers.env` and then `env` (e.g. METRICS_PORT): a scale-up while traffic runs. Stopped with
   * the platform.
   */
  startWorker(env?: Record<string, string>): Promise<RunningApp>;
  /** The speech pipeline's queue, Redis key prefix and database the gateways (and workers) use. */
  speech: { queue: string; keyPrefix: string; db: string };
  stop(): Promise<void>;
}

export interface PlatformOptions {
  gateways?: number;
  gatewayEnv?: Record<string, string>;
  authEnv?: Record<string, string>;
  contentEnv?: Record<string, string>;
  /**
   * Synthesis workers to start with the platform, on a queue, key prefix and speech database of
   * this platform's own (so test files running at once never take each other's jobs); `env` is
   * added to each worker's environment.
   */
  speechWorkers?: { count?: number; env?: Record<string, string> };
}

/**
 * auth, content and N gateway replicas as processes, isolated from other test runs: own
 * databases, topic prefix, Redis prefixes and ports. PUBLIC_URL is the first replica (what a
 * load balancer's address would be): the issuer, the audience and the DPoP `htu` origin.
 */
export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const stack = stackEnv();
  const [authPort, contentPort] = [await freePort(), await freePort()];
  const gatewayPorts: number[] = [];
  for (let i = 0; i < (options.gateways ?? 1); i += 1) gatewayPorts.push(await freePort());
  const publicUrl = `http://127.0.0.1:${gatewayPorts[0]}`;
  const topicPrefix = `${uniqueName('gw')}.`;
  const rateLimitPrefix = uniqueName('gwrl');
  const common = { ...stack, INTERNAL_SECRET, LOG_LEVEL: 'warn', PUBLIC_URL: publicUrl };
  const authUrl = `http://127.0.0.1:${authPort}`;
  const authDb = uniqueName('gwauth');
  const speech = { queue: uniqueName('synthesis'), keyPrefix: uniqueName('speech'), db: uniqueName('gwspeech') };
  const contentUrl = `http://127.0.0.1:${contentPort}`;
  const [auth, content] = await Promise.all([
    startApp({
      app: 'auth',
      env: { ...common, PORT: String(authPort), MONGO_DB: authDb, ...options.authEnv },
      readyTimeoutMs: 60_000,
    }),
    startApp({
      app: 'content',
      env: {
        ...common,
        PORT: String(contentPort),
        MONGO_DB: uniqueName('gwcontent'),
        KAFKA_TOPIC_PREFIX: topicPrefix,
        REDIS_PREFIX: `${uniqueName('gwc')}:`,
        AUTH_URL: authUrl,
        OUTBOX_POLL_MS: '50',
        ...options.contentEnv,
      },
      readyTimeoutMs: 60_000,
    }),
  ]);
  const gatewayEnv = (port: number) => ({
    ...common,
    PORT: String(port),
    AUTH_URL: authUrl,
    CONTENT_URL: contentUrl,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    RATE_LIMIT_PREFIX: rateLimitPrefix,
    UPSTREAM_TIMEOUT_MS: '10000',
    // A test's stop does not wait out a WebSocket it left open (docs/gateway.md, "Shutdown").
    SHUTDOWN_GRACE_MS: '3000',
    MONGO_URL: stack.MONGO_URL,
    SPEECH_MONGO_DB: speech.db,
    ...(options.speechWorkers ? { SYNTHESIS_QUEUE: speech.queue, SPEECH_KEY_PREFIX: speech.keyPrefix } : {}),
    ...options.gatewayEnv,
  });
  const startWorker = async (env: Record<string, string> = {}) =>
    startApp({
      app: 'synthesis-worker',
      env: {
        ...stack,
        PORT: String(await freePort()),
        MONGO_DB: speech.db,
        SYNTHESIS_QUEUE: speech.queue,
        SPEECH_KEY_PREFIX: speech.keyPrefix,
        LOG_LEVEL: 'warn',
        ...options.speechWorkers?.env,
        ...env,
      },
      readyTimeoutMs: 60_000,
    });
  const started = await Promise.allSettled([
    ...gatewayPorts.map((port) => startApp({ app: 'gateway', env: gatewayEnv(port), readyTimeoutMs: 60_000 })),
    ...Array.from({ length: options.speechWorkers ? (options.speechWorkers.count ?? 1) : 0 }, () => startWorker()),
  ]);
  const running = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.allSettled([...running.map((app) => app.stop()), auth.stop(), content.stop()]);
    throw failed.reason;
  }
  const gateways = running.slice(0, gatewayPorts.length);
  const workers = running.slice(gatewayPorts.length);
  // Every speech API response the tests get from a gateway is checked against the speech API's OpenAPI document.
  const stopChecking = gatewayPorts.map((port) => checkSpeechResponses(`http://127.0.0.1:${port}`));
  return {
    auth,
    content,
    gateways,
    publicUrl,
    authDb,
    topicPrefix,
    rateLimitPrefix,
    gatewayEnv,
    workers,
    async startWorker(env) {
      const worker = await startWorker(env);
      workers.push(worker);
      return worker;
    },
    speech,
    async stop() {
      for (const stop of stopChecking) stop();
      await Promise.allSettled([
        ...workers.map((w) => w.stop()),
        ...gateways.map((g) => g.stop()),
        auth.stop(),
        content.stop(),
      ]);
    },
  };
}

export interface Account {
  id: string;
  email: string;
  password: string;
  /** Access token from `/api/v1/auth/login` (first-party client, all scopes, aud PUBLIC_URL). */
  token: string;
}

export async function json(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Registers through the gateway (content → auth) and logs in. */
export async function registerAccount(gatewayUrl: string, name = 'Gateway Tester'): Promise<Account> {
  const email = `${randomUUID()}@example.com`;
  const password = 'correct horse battery staple';
  const registered = await fetch(`${gatewayUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, email, password }),
  });
  if (registered.status !== 201)
    throw new Error(`register: ${registered.status} ${JSON.stringify(await json(registered))}`);
  const { user } = (await registered.json()) as { user: { id: string } };
  const login = await fetch(`${gatewayUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(await json(login))}`);
  const { token } = (await login.json()) as { token: string };
  return { id: String(user.id), email, password, token };
}

export async function createApiKey(authUrl: string, accountId: string): Promise<{ id: string; key: string }> {
  const res = await fetch(`${authUrl}/internal/accounts/${accountId}/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
    body: JSON.stringify({ name: 'e2e' }),
  });
  if (res.status !== 201) throw new Error(`api key: ${res.status} ${JSON.stringify(await json(res))}`);
  return (await res.json()) as { id: string; key: string };
}

export async function revokeApiKey(authUrl: string, keyId: string): Promise<void> {
  const res = await fetch(`${authUrl}/internal/api-keys/${keyId}`, {
    method: 'DELETE',
    headers: { 'x-internal-secret': INTERNAL_SECRET },
  });
  if (res.status !== 204) throw new Error(`revoke: ${res.status}`);
}

/**
 * The platform with a synthesis worker, the free plan given room for a test's burst (plan limits are the
 * gateway's own tests' concern), and an API key of a newly registered account named `name`.
 */
export async function startSpeechPlatform(name: string): Promise<{ platform: Platform; key: string }> {
  const roomy = JSON.stringify({ free: { rps: 100, concurrency: 10 } });
  const platform = await startPlatform({ speechWorkers: {}, gatewayEnv: { PLAN_LIMITS_JSON: roomy } });
  const account = await registerAccount(platform.publicUrl, name);
  return { platform, key: (await createApiKey(platform.auth.url, account.id)).key };
}

/** The shared poll-until helper (tests/support), re-exported for the gateway tests. */
export { eventually } from '@platform/testing';
