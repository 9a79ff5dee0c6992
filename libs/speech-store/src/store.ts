import mongoose, { type Connection } from 'mongoose';
import { createSpeechModels, type SpeechModels } from './documents';
import { DEFAULT_PLANS, type Plans } from './plan-allowances';
import type { PremadeVoice } from './premade';
import { sampleBucket } from './sample-files';

/** Everything the speech-store functions need, passed in explicitly (tests hand in their own). */
export interface SpeechStore {
  connection: Connection;
  models: SpeechModels;
  /** GridFS bucket `voice_samples`: uploaded cloning samples. */
  samples: mongoose.mongo.GridFSBucket;
  /** GridFS bucket `history_audio`: the exact bytes of each generation. */
  audio: mongoose.mongo.GridFSBucket;
  plans: Plans;
  /** The premade voices every account sees (the engine's catalogue). */
  premade: readonly PremadeVoice[];
  now: () => number;
}

export interface SpeechStoreOptions {
  plans?: Plans;
  premade?: readonly PremadeVoice[];
  now?: () => number;
}

/** Builds the store on a connection to the `speech` database and makes sure its indexes exist. */
export async function createSpeechStore(
  connection: Connection,
  options: SpeechStoreOptions = {},
): Promise<SpeechStore> {
  const models = createSpeechModels(connection);
  await Promise.all(Object.values(models).map((model) => model.init()));
  const db = connection.db;
  if (!db) throw new Error('speech store: connection has no database');
  return {
    connection,
    models,
    samples: sampleBucket(db),
    audio: new mongoose.mongo.GridFSBucket(db, { bucketName: 'history_audio' }),
    plans: options.plans ?? DEFAULT_PLANS,
    premade: options.premade ?? [],
    now: options.now ?? Date.now,
  };
}
