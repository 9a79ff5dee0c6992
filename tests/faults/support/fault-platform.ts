import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, startApp, type RunningApp, type StackEnv } from '@platform/testing';
import { INTERNAL_SECRET } from '../../gateway/platform';

export type AppName = 'auth' | 'content' | 'gateway-a' | 'gateway-b' | 'worker-a' | 'worker-b';

export interface FaultPlatform {
  /** The running process of each app (replaced when it is restarted). */
  app(name: AppName): RunningApp;
  /** The gateways a load balancer would send to now: those not taken out by `kill`. */
  liveGateways(): string[];
  publicUrl: string;
  authDb: string;
  speech: { queue: string; keyPrefix: string; db: string };
  /** SIGKILL (a crashed process or machine); a gateway leaves the load balancer's rotation once it is gone. */
  kill(name: AppName): Promise<void>;
  /** Starts it again with the same environment and port, and waits for `/readyz`; a gateway rejoins the rotation. */
  restart(name: AppName): Promise<void>;
  /** Runs auth's admin CLI against this platform's database; its JSON answer. */
  authCli<T>(args: string[]): Promise<T>;
  stop(): Promise<void>;
}

/** Room for a long mix: the plan's rate and character allowance are not under test here. */
export const ROOMY_PLANS = {
  PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 500, concurrency: 50 }, anonymous: { rps: 500, concurrency: 50 } }),
  SPEECH_PLANS: JSON.stringify({ free: { character_limit: 100_000_000 } }),
};

/**
 * auth, content, two gateway replicas and two synthesis workers as processes on the given stack, each
 * restartable on its own port with its own environment (what a process supervisor does).
 */
export async function startFaultPlatform(
  stack: StackEnv,
  extra: Partial<Record<'gateway' | 'worker', Record<string, string>>> = {},
): Promise<FaultPlatform> {
  const port = async () => String(await freePort());
  const [authPort, contentPort, gwA, gwB] = [await port(), await port(), await port(), await port()];
  const publicUrl = `http://127.0.0.1:${gwA}`;
  const common = { ...stack, INTERNAL_SECRET, LOG_LEVEL: 'warn', PUBLIC_URL: publicUrl };
  const authDb = 'faults_auth';
  const speech = { queue: 'faults-synthesis', keyPrefix: 'faults-speech', db: 'faults_speech' };
  const topicPrefix = 'faults.';
  const gateway = (p: string) => ({
    ...common,
    ...ROOMY_PLANS,
    PORT: p,
    AUTH_URL: `http://127.0.0.1:${authPort}`,
    CONTENT_URL: `http://127.0.0.1:${contentPort}`,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    SPEECH_MONGO_DB: speech.db,
    SYNTHESIS_QUEUE: speech.queue,
    SPEECH_KEY_PREFIX: speech.keyPrefix,
    ...extra.gateway,
  });
  const worker = async () => ({
    ...stack,
    LOG_LEVEL: 'warn',
    PORT: await port(),
    MONGO_DB: speech.db,
    SYNTHESIS_QUEUE: speech.queue,
    SPEECH_KEY_PREFIX: speech.keyPrefix,
    SPEECH_PLANS: ROOMY_PLANS.SPEECH_PLANS,
    ...extra.worker,
  });
  const envs: Record<AppName, { app: string; env: Record<string, string> }> = {
    auth: { app: 'auth', env: { ...common, PORT: authPort, MONGO_DB: authDb } },
    content: {
      app: 'content',
      env: {
        ...common,
        PORT: contentPort,
        MONGO_DB: 'faults_content',
        KAFKA_TOPIC_PREFIX: topicPrefix,
        AUTH_URL: `http://127.0.0.1:${authPort}`,
        OUTBOX_POLL_MS: '50',
      },
    },
    'gateway-a': { app: 'gateway', env: gateway(gwA) },
    'gateway-b': { app: 'gateway', env: gateway(gwB) },
    'worker-a': { app: 'synthesis-worker', env: await worker() },
    'worker-b': { app: 'synthesis-worker', env: await worker() },
  };
  const start = (name: AppName) => startApp({ ...envs[name], readyTimeoutMs: 120_000 });
  const running = new Map<AppName, RunningApp>();
  const out = new Set<AppName>();
  // Auth and content first: the gateways' readiness asks them.
  for (const batch of [
    ['auth', 'content'],
    ['gateway-a', 'gateway-b', 'worker-a', 'worker-b'],
  ] as AppName[][]) {
    const started = await Promise.allSettled(batch.map(async (name) => running.set(name, await start(name))));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await Promise.allSettled([...running.values()].map((a) => a.stop('SIGKILL')));
      throw failed.reason;
    }
  }
  const gateways: AppName[] = ['gateway-a', 'gateway-b'];
  return {
    app: (name) => running.get(name)!,
    liveGateways: () => gateways.filter((g) => !out.has(g)).map((g) => running.get(g)!.url),
    publicUrl,
    authDb,
    speech,
    async kill(name) {
      // Killed while in rotation: requests in flight on it are cut; the load balancer's health check then takes it out.
      await running.get(name)!.stop('SIGKILL');
      out.add(name);
    },
    async restart(name) {
      running.set(name, await start(name));
      out.delete(name);
    },
    async authCli<T>(args: string[]) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [path.resolve(__dirname, '../../../apps/auth/dist/cli/main.js'), ...args],
        {
          env: { PATH: process.env.PATH ?? '', ...stack, MONGO_DB: authDb, INTERNAL_SECRET, PUBLIC_URL: publicUrl },
          timeout: 60_000,
        },
      );
      return JSON.parse(stdout) as T;
    },
    async stop() {
      await Promise.allSettled([...running.values()].map((a) => a.stop()));
    },
  };
}
