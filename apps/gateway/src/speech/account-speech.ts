import { Router } from 'express';
import type { Logger } from '@platform/logger';
import { connectMongo, mongoReadiness } from '@platform/stores';
import { createAnalysisPool } from '../voice-analysis';
import {
  createSpeechStore,
  createStoreHooks,
  loadPlans,
  type PremadeVoice,
  type SpeechStore,
  type StoreHooks,
} from '@platform/speech-store';
import { historyRoutes } from './history';
import { voicesRoutes } from './voices';
import { voicesSearchRoutes } from './voices/voices-search-routes';
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
   * Voice cloning's CPU work (docs/configuration.md): analysis threads (default 1), uploads that
   * may wait for one (default 2), and voice uploads in progress per account (default 1).
   */
  voiceAnalysis?: { threads?: number; queue?: number; perAccount?: number };
}

const VOICE_ANALYSIS_DEFAULTS = { threads: 1, queue: 2, perAccount: 1 } as const;

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
  const cloning = { ...VOICE_ANALYSIS_DEFAULTS, ...options.voiceAnalysis };
  // The threads store the samples of a voice they accept themselves, over a connection of their own.
  const analysis = createAnalysisPool({
    threads: cloning.threads,
    maxQueued: cloning.queue,
    sampleStore: { mongoUrl: options.mongoUrl, dbName },
  });
  const admission = createCloneAdmission(cloning.perAccount);
  const router = Router();
  router.use(voicesRoutes({ store, logger: options.logger, publicUrl: options.publicUrl, analysis, admission }));
  router.use(historyRoutes({ store, logger: options.logger }));
  router.use(userRoutes({ store, logger: options.logger }));
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
