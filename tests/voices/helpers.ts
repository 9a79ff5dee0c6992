import { connectMongo } from '@platform/stores';
import { stackEnv, uniqueName } from '@platform/testing';
import { createSpeechStore, type SpeechStore, type SpeechStoreOptions } from '@platform/speech-store';

/** A speech store on a database of its own, dropped by `close`. */
export async function testStore(
  options: SpeechStoreOptions = {},
): Promise<{ store: SpeechStore; close: () => Promise<void> }> {
  const connection = await connectMongo(stackEnv().MONGO_URL, uniqueName('voices'));
  const store = await createSpeechStore(connection, options);
  return {
    store,
    close: async () => {
      await connection.dropDatabase().catch(() => undefined);
      await connection.close();
    },
  };
}
