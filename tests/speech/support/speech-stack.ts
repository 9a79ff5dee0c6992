import http from 'node:http';
import path from 'node:path';
import express from 'express';
import pino from 'pino';
import type { Identity } from '@platform/identity';
import { keepIdleConnections } from '@platform/service';
import { connectRedis } from '@platform/stores';
import { freePort, scrapeMetrics, stackEnv, startApp, sumOf, uniqueName, type RunningApp } from '@platform/testing';
import type { Redis } from 'ioredis';
import { upgradeClientAddress } from '../../../apps/gateway/src/limits/client-address';
import { createFailedCredentialBudget } from '../../../apps/gateway/src/limits/failed-credentials';
import { createRateLimiter } from '../../../apps/gateway/src/limits/rate-limiter';
import { createWebSocketLogins } from '../../../apps/gateway/src/limits/websocket-logins';
import { createSpeechEdge, type SpeechEdge } from '../../../apps/gateway/src/speech';
import { speechConfig } from '../../../apps/gateway/src/speech/speech-config';
import { checkSpeechResponses } from '../../contract/speech-responses';

/**
 * The speech pipeline for tests: real synthesis-worker processes on a queue and key prefix of
 * their own, and the gateway's speech edge served by a small HTTP server with the gateway's
 * contract (`req.identity` set from an API key). Redis is the stack's (or `redisUrl`).
 */
export interface SpeechStack {
  url: string;
  wsUrl: string;
  apiKey: string;
  /** API keys of further accounts, one per plan: `acct_<plan>` with that plan (priority tests). */
  planKeys: Record<PlanKeyName, string>;
  queue: string;
  prefix: string;
  /** The speech database the workers record history in. */
  speechDb: string;
  redis: Redis;
  workers: SpeechWorker[];
  startWorker(env?: Record<string, string>): Promise<SpeechWorker>;
  /** WebSocket sessions the fake plan limiter grants at once. */
  setSessionLimit(n: number): void;
  /** API keys the edge has asked the (fake) key lookup about so far. */
  keyLookups(): number;
  /** Characters the test quota still allows (Infinity = no quota hook refusals). */
  setQuota(characters: number): void;
  /** The speech database's store, when `accountSpeech` is set. */
  store: SpeechEdge['store'];
  stop(): Promise<void>;
}

/** A synthesis-worker process and its internal metrics listener (METRICS_PORT). */
export interface SpeechWorker extends RunningApp {
  metricsUrl: string;
}

/** A worker's job counters, from its Prometheus metrics (all models). */
export async function workerJobCounts(
  worker: SpeechWorker,
): Promise<{ jobsStarted: number; jobsCompleted: number; jobsCancelled: number }> {
  const samples = await scrapeMetrics(worker.metricsUrl);
  return {
    jobsStarted: sumOf(samples, 'synthesis_jobs_started_total'),
    jobsCompleted: sumOf(samples, 'synthesis_jobs_total', { outcome: 'completed' }),
    jobsCancelled: sumOf(samples, 'synthesis_jobs_total', { outcome: 'cancelled' }),
  };
}

export interface SpeechStackOptions {
  workers?: number;
  /**
   * Jobs each worker runs at once, as `WORKER_REALTIME_STREAMS` (set, so no worker spends its boot
   * calibrating and a test's concurrency does not depend on the machine's load) and
   * `WORKER_CONCURRENCY`; default 2.
   */
  concurrency?: number;
  frameTimeoutMs?: number;
  /** The gateway's `SPEECH_QUEUE_WAIT_MS`; default 0 (no bound: the frame timeout alone). */
  queueWaitMs?: number;
  lockMs?: number;
  /** Further environment of every worker process (e.g. `SYNTHESIS_STALLED_INTERVAL_MS`). */
  workerEnv?: Record<string, string>;
  redisUrl?: string;
  wsIdleTimeoutMs?: number;
  /** The gateway's `SPEECH_WS_AUTH_TIMEOUT_MS` (its default when unset). */
  wsAuthTimeoutMs?: number;
  /** The gateway's `SPEECH_WRITE_STALL_TIMEOUT_MS` (its default when unset). */
  writeStallTimeoutMs?: number;
  /** Concurrency the fake plan limiter grants per key (WebSocket sessions). */
  sessionLimit?: number;
  /** Serve the neural model (its workers load the Piper voice at boot, which takes seconds). */
  neural?: boolean;
  /** Serve the neural model from this voices directory (Piper voices, a `voices.json`) instead of the fetched one. */
  voicesDir?: string;
  /** Serve the voices/history/user routes on the speech database, and use its voice lookup. */
  accountSpeech?: boolean;
  /**
   * With `accountSpeech`: reserve and settle characters in the speech database (the gateway's real
   * quota hook) instead of the test's allowance (`setQuota` then has no effect).
   */
  storeQuota?: boolean;
  /**
   * Charge WebSocket logins refused for their key to the client IP's budget of this many per second,
   * as the gateway does: its real Redis rate limiter (a prefix of the run's own) and its reading of
   * the upgrade's client IP under `TRUST_PROXY=loopback` (tests send X-Forwarded-For). The fake key
   * lookup has no cache: every key would ask auth.
   */
  loginBudgetRps?: number;
}

const PLAN_KEY_NAMES = ['free', 'creator', 'pro'] as const;
export type PlanKeyName = (typeof PLAN_KEY_NAMES)[number];

/** Where `scripts/fetch-voices.mjs` (run by `npm test`) puts the neural voice. */
export const PIPER_VOICES_DIR = process.env.PIPER_VOICES_DIR ?? path.resolve(__dirname, '../../../.stack/voices/piper');

export async function startSpeechStack(options: SpeechStackOptions = {}): Promise<SpeechStack> {
  const env = stackEnv();
  const redisUrl = options.redisUrl ?? env.REDIS_URL;
  const queue = uniqueName('synthesis');
  const prefix = uniqueName('speech');
  const apiKey = `sk_test_${uniqueName('key')}`;
  const speechDb = uniqueName('speech_e2e');
  // The default account's plan may use every output format (docs/speech.md, "Output formats").
  const identity: Identity = {
    sub: 'acct_test',
    roles: ['USER'],
    scope: 'speech:read speech:write',
    method: 'api_key',
    plan: 'pro',
  };
  const identities = new Map<string, Identity>([[apiKey, identity]]);
  const planKeys = {} as Record<PlanKeyName, string>;
  for (const plan of PLAN_KEY_NAMES) {
    planKeys[plan] = `sk_test_${uniqueName(plan)}`;
    identities.set(planKeys[plan], { ...identity, sub: `acct_${plan}`, plan });
  }
  const redis = await connectRedis(redisUrl);
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const logger = pino({ level: 'silent' });
  let sessions = 0;
  let sessionLimit = options.sessionLimit ?? 100;
  let quota = Number.POSITIVE_INFINITY;
  let keyLookups = 0;
  const logins =
    options.loginBudgetRps === undefined
      ? undefined
      : createWebSocketLogins({
          failures: createFailedCredentialBudget(
            new Map([['anonymous', { rps: options.loginBudgetRps, concurrency: 1 }]]),
            createRateLimiter(redis, uniqueName('speechrl')),
          ),
          apiKeys: { isCached: () => false },
          addressOf: upgradeClientAddress('loopback'),
          logger,
        });
  const edge: SpeechEdge = await createSpeechEdge({
    // The gateway's defaults (speech-config.ts) for every setting the test does not choose.
    config: speechConfig({
      REDIS_URL: redisUrl,
      PUBLIC_URL: publicUrl,
      SYNTHESIS_QUEUE: queue,
      SPEECH_KEY_PREFIX: prefix,
      SPEECH_FRAME_TIMEOUT_MS: options.frameTimeoutMs,
      SPEECH_QUEUE_WAIT_MS: options.queueWaitMs ?? 0,
      SPEECH_WS_IDLE_TIMEOUT_MS: options.wsIdleTimeoutMs,
      SPEECH_WS_AUTH_TIMEOUT_MS: options.wsAuthTimeoutMs,
      SPEECH_WRITE_STALL_TIMEOUT_MS: options.writeStallTimeoutMs,
      PIPER_VOICES_DIR: options.voicesDir ?? (options.neural ? PIPER_VOICES_DIR : ''),
      // The speech database for voices and the gateway's history records, as the gateway process wires it.
      ...(options.accountSpeech ? { MONGO_URL: env.MONGO_URL, SPEECH_MONGO_DB: speechDb } : {}),
    }),
    logger,
    // For quota, unless the speech database's (`storeQuota`), a stand-in that refuses once the test's
    // allowance is spent.
    hooks:
      options.accountSpeech && options.storeQuota
        ? {}
        : {
            quota: {
              reserve: async (_account, characters) =>
                characters <= quota
                  ? { ok: true, reservationId: `r_${characters}` }
                  : {
                      ok: false,
                      status: 'character_limit_exceeded',
                      message: 'character limit reached for this period',
                    },
              settle: async () => undefined,
            },
          },
    redis,
    authenticateApiKey: async (key) => {
      keyLookups += 1;
      return identities.get(key) ?? null;
    },
    ...(logins ? { logins } : {}),
    limits: {
      acquire: async () => {
        if (sessions >= sessionLimit) return null;
        sessions++;
        return () => {
          sessions--;
        };
      },
    },
  });
  const app = express();
  const authenticate: express.RequestHandler = (req, res, next) => {
    const header = req.headers['xi-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
    const found = typeof header === 'string' ? identities.get(header) : undefined;
    if (!found) {
      res.status(401).json({ detail: { status: 'invalid_api_key', message: 'invalid API key' } });
      return;
    }
    (req as express.Request & { identity?: Identity }).identity = found;
    next();
  };
  app.use('/v1', authenticate, edge.router);
  app.use('/v2', authenticate, edge.routerV2);
  const server = http.createServer(app);
  // As the gateway's server does (libs/service): a connection the test's client keeps is not closed under it.
  keepIdleConnections(server);
  server.on('upgrade', (req, socket, head) => {
    if (!edge.handleUpgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  // Every response the tests get is checked against the speech API's OpenAPI document.
  const stopChecking = checkSpeechResponses(`http://127.0.0.1:${port}`);

  const workers: SpeechWorker[] = [];
  const startWorker = async (extra: Record<string, string> = {}) => {
    const workerPort = await freePort();
    const metricsPort = await freePort();
    const app = await startApp({
      app: 'synthesis-worker',
      env: {
        REDIS_URL: redisUrl,
        MONGO_URL: env.MONGO_URL,
        MONGO_DB: speechDb,
        PORT: String(workerPort),
        METRICS_PORT: String(metricsPort),
        SYNTHESIS_QUEUE: queue,
        SPEECH_KEY_PREFIX: prefix,
        WORKER_CONCURRENCY: String(options.concurrency ?? 2),
        WORKER_REALTIME_STREAMS: String(options.concurrency ?? 2),
        SYNTHESIS_LOCK_MS: String(options.lockMs ?? 10_000),
        PIPER_VOICES_DIR: options.voicesDir ?? (options.neural ? PIPER_VOICES_DIR : ''),
        ...options.workerEnv,
        ...extra,
      },
      readyTimeoutMs: 60_000,
    });
    const worker = { ...app, metricsUrl: `http://127.0.0.1:${metricsPort}` };
    workers.push(worker);
    return worker;
  };
  await Promise.all(Array.from({ length: options.workers ?? 1 }, () => startWorker()));

  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    apiKey,
    planKeys,
    queue,
    prefix,
    speechDb,
    redis,
    workers,
    startWorker,
    setSessionLimit: (n) => {
      sessionLimit = n;
    },
    keyLookups: () => keyLookups,
    setQuota: (n) => {
      quota = n;
    },
    store: edge.store,
    async stop() {
      stopChecking();
      await edge.stopIntake();
      await edge.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(workers.map((w) => w.stop('SIGTERM')));
      // Remove whatever this run's queue left (nothing, when all went well).
      const keys = await redis.keys(`bull:${queue}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
