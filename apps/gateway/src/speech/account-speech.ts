import { Router } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';
import { connectMongo, mongoReadiness } from '@platform/stores';
import {
  createSpeechStore,
  createStoreHooks,
  loadPlans,
  type PremadeVoice,
  type SpeechStore,
  type StoreHooks,
} from '@platform/speech-store';
import { historyRoutes } from './history';
import { pronunciationDictionaryRoutes } from './pronunciation/dictionaries-routes';
import { voicesRoutes } from './voices';
import { voicesSearchRoutes } from './voices/voices-search-routes';
import { createAnalysisQueue } from './voices/analysis-queue';
import { createCloneAdmission } from './voices/clone-admission';
import { userRoutes } from './user';

interface AccountSpeechOptions {
  mongoUrl: string;
  /** The speech database (default `speech`), shared with the synthesis worker. */
  mongoDb?: string;
  publicUrl: string;
  /** `SPEECH_PLANS` JSON overrides of the plan table (docs/speech.md). */
  plansJson?: string;
  premade: readonly PremadeVoice[];
  logger: Logger;
  /**
   * Voice cloning (docs/configuration.md): its analysis jobs go to the synthesis workers over `redis`, on
   * a queue named after `synthesisQueue`; a job no worker starts within `waitMs` is withdrawn (503); an
   * account has at most `perAccount` voice uploads in progress.
   */
  voiceAnalysis: { redis: Redis; synthesisQueue: string; waitMs: number; perAccount: number };
}

export interface AccountSpeech {
  store: SpeechStore;
  /** Voices, history, user: mount under `/v1` after authentication. */
  router: Router;
  /** The hosted API's `/v2` endpoints (voice search): mount under `/v2` after authentication. */
  routerV2: Router;
  /** For `createSpeechEdge({ hooks })`: cloned voices, character reservations, the gateway's history records. */
  hooks: StoreHooks;
  ready(): Promise<unknown>;
  close(): Promise<void>;
}

/** The speech API's account features (voices, history, user) in the gateway, from one connection to the speech database. */
export async function createAccountSpeech(options: AccountSpeechOptions): Promise<AccountSpeech> {
  const plans = loadPlans(options.plansJson);
  const dbName = options.mongoDb ?? 'speech';
  const connection = await connectMongo(options.mongoUrl, dbName);
  const store = await createSpeechStore(connection, { plans, premade: options.premade });
  const cloning = options.voiceAnalysis;
  const analysis = createAnalysisQueue({
    redis: cloning.redis,
    synthesisQueue: cloning.synthesisQueue,
    startWaitMs: cloning.waitMs,
  });
  const admission = createCloneAdmission(cloning.perAccount);
  const router = Router();
  router.use(voicesRoutes({ store, logger: options.logger, publicUrl: options.publicUrl, analysis, admission }));
  router.use(historyRoutes({ store, logger: options.logger }));
  router.use(userRoutes({ store, logger: options.logger }));
  router.use(pronunciationDictionaryRoutes({ store, logger: options.logger }));
  const routerV2 = Router();
  routerV2.use(voicesSearchRoutes({ store, logger: options.logger }));
  return {
    store,
    router,
    routerV2,
    hooks: createStoreHooks(store),
    ready: () => mongoReadiness(connection),
    close: async () => {
      await analysis.close();
      await connection.close();
    },
  };
}
