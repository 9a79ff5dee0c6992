// A gateway that dies mid-generation, as far as the character quota can tell: it reserves
// characters through the gateway's own quota hook (createStoreHooks(store).quota.reserve, the
// built libraries), prints `reserved <unix ms>`, and waits to be killed before it can settle.
// Env: MONGO_URL, MONGO_DB, ACCOUNT_ID, JOB_ID, CHARACTERS.
import stores from '@platform/stores';
import speechStore from '@platform/speech-store';

const { connectMongo } = stores;
const { createSpeechStore, createStoreHooks } = speechStore;

async function main() {
  const connection = await connectMongo(process.env.MONGO_URL, process.env.MONGO_DB);
  const store = await createSpeechStore(connection);
  const reservation = await createStoreHooks(store).quota.reserve(
    process.env.ACCOUNT_ID,
    Number(process.env.CHARACTERS),
    process.env.JOB_ID,
    'free',
  );
  if (!reservation.ok) throw new Error(reservation.message);
  process.stdout.write(`reserved ${Date.now()}\n`);
  setInterval(() => undefined, 60_000);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
