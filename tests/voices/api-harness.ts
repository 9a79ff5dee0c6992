import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createLogger } from '@platform/logger';
import type { Identity } from '@platform/identity';
import type { SpeechStore } from '@platform/speech-store';
import { connectRedis } from '@platform/stores';
import { stackEnv, uniqueName } from '@platform/testing';
import { voicesRoutes } from '../../apps/gateway/src/speech/voices';
import { createAnalysisQueue } from '../../apps/gateway/src/speech/voices/analysis-queue';
import { startVoiceAnalysisWorker } from '../../apps/synthesis-worker/src/voice-analysis/analysis-worker';
import { createCloneAdmission } from '../../apps/gateway/src/speech/voices/clone-admission';
import { historyRoutes } from '../../apps/gateway/src/speech/history';
import { userRoutes } from '../../apps/gateway/src/speech/user';
import { checkSpeechResponses } from '../contract/speech-responses';

/**
 * The voices, history and user routers mounted at /v1 in a small express app, with the identity
 * the gateway would set taken from test headers (`x-test-account`, `x-test-plan`, `x-test-scope`).
 */
export async function startApi(store: SpeechStore): Promise<{ url: string; close: () => Promise<void> }> {
  const logger = createLogger('voices-test', 'silent');
  const app = express();
  app.use((req, _res, next) => {
    const account = req.headers['x-test-account'];
    const identity: Identity =
      typeof account === 'string'
        ? {
            sub: account,
            roles: ['USER'],
            scope:
              typeof req.headers['x-test-scope'] === 'string'
                ? req.headers['x-test-scope']
                : 'speech:read speech:write',
            method: 'api_key',
            ...(typeof req.headers['x-test-plan'] === 'string' ? { plan: req.headers['x-test-plan'] } : {}),
          }
        : { roles: [], scope: '', method: 'anonymous' };
    (req as express.Request & { identity?: Identity }).identity = identity;
    next();
  });
  const v1 = express.Router();
  // As the platform runs it: the analysis jobs on a queue of their own (named after a synthesis queue
  // of this run's), one worker taking them one at a time on its thread, reading the store's database.
  const redis = await connectRedis(stackEnv().REDIS_URL, { maxRetriesPerRequest: null });
  const synthesisQueue = uniqueName('voices');
  const workerRedis = redis.duplicate();
  const worker = startVoiceAnalysisWorker({
    connection: workerRedis,
    synthesisQueue,
    concurrency: 1,
    store: { mongoUrl: stackEnv().MONGO_URL, dbName: store.connection.name },
    lockMs: 10_000,
    stalledIntervalMs: 5_000,
    logger,
  });
  const analysis = createAnalysisQueue({ redis, synthesisQueue, startWaitMs: 60_000 });
  v1.use(
    voicesRoutes({ store, logger, publicUrl: 'http://platform.test', analysis, admission: createCloneAdmission(1) }),
  );
  v1.use(historyRoutes({ store, logger }));
  v1.use(userRoutes({ store, logger }));
  app.use('/v1', v1);
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // Every response the tests get is checked against the speech API's OpenAPI document.
  const stopChecking = checkSpeechResponses(`http://127.0.0.1:${port}`);
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      stopChecking();
      await analysis.close();
      await worker.close();
      await Promise.all([workerRedis.quit(), redis.quit()]);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function as(account: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-test-account': account, ...extra };
}

export function uploadForm(
  fields: Record<string, string>,
  files: { name: string; bytes: Buffer; type?: string }[],
): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files)
    form.append('files', new Blob([new Uint8Array(f.bytes)], { type: f.type ?? 'audio/wav' }), f.name);
  return form;
}
