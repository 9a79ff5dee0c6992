import { Router } from 'express';
import type { Logger } from '@platform/logger';
import { connectMongo, mongoReadiness } from '@platform/stores';
import { createSpeechStore, createStoreHooks, loadPlans, type PremadeVoice, type SpeechStore, type StoreHooks } from '@platform/speech-store';
import { historyRoutes } from '../history';
import { voicesRoutes } from '../voices';
import { userRoutes } from './user-routes';

export interface AccountSpeechOptions {
  mongoUrl: string;
  /** The speech database (default `speech`), shared with the synthesis worker. */
  mongoDb?: string;
  publicUrl: string;
  /** `SPEECH_PLANS` JSON overrides of the plan table (docs/speech.md). */
  plansJson?: string;
  premade: readonly PremadeVoice[];
  logger: Logger;
}

export interface AccountSpeech {
  store: SpeechStore;
  /** Voices, history, user: mount under `/v1` after authentication. */
  router: Router;
  /** For `createSpeechEdge({ hooks })`: cloned voices, character reservations, the gateway's history records. */
  hooks: StoreHooks;
  ready(): Promise<unknown>;
  close(): Promise<void>;
}

/** Everything issue 7 adds to the gateway, from one connection to the speech database. */
export async function createAccountSpeech(options: AccountSpeechOptions): Promise<AccountSpeech> {
  const plans = loadPlans(options.plansJson);
  const connection = await connectMongo(options.mongoUrl, options.mongoDb ?? 'speech');
  const store = await createSpeechStore(connection, { plans, premade: options.premade });
  const router = Router();
  router.use(voicesRoutes({ store, logger: options.logger, publicUrl: options.publicUrl }));
  router.use(historyRoutes({ store, logger: options.logger }));
  router.use(userRoutes({ store, logger: options.logger }));
  return {
    store,
    router,
    hooks: createStoreHooks(store),
    ready: () => mongoReadiness(connection),
    close: () => connection.close(),
  };
}
