import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { sampleBucket, sampleToData, storeSampleFiles, type SampleData, type SampleInput } from '@platform/speech-store/sample-files';
import { connectMongo, isStoreUnavailable } from '@platform/stores';
import { analyseClone, type CloneOutcome } from './clone-analysis';
import type { SampleStoreConfig, SampleStoring, ThreadReply, ThreadRequest } from './analysis-pool';

/**
 * Entry of an analysis worker thread (`createAnalysisPool`): one job at a time. The sample bytes arrive
 * transferred (not copied); when the job asks, the samples that make a voice are stored from here, over the
 * thread's own connection, so the server's event loop never cuts, serialises or hashes them.
 */
// The lowest CPU priority for this thread (on Linux `setpriority(0)` applies to the calling thread
// only) and so for the ffmpeg processes it starts, which inherit it: on a busy machine the server's
// event loop keeps its core and analysis waits, not the other way round.
try {
  os.setPriority(19);
} catch {
  // not permitted on this platform: analysis then runs at normal priority
}

const storeConfig = workerData as SampleStoreConfig | null;
let bucket: Promise<ReturnType<typeof sampleBucket>> | undefined;

/** The samples bucket, connected at the first job that stores; a failed connection is tried again by the next. */
function connectedBucket(config: SampleStoreConfig): Promise<ReturnType<typeof sampleBucket>> {
  bucket ??= connectMongo(config.mongoUrl, config.dbName).then((connection) => {
    if (!connection.db) throw new Error('mongo: not connected');
    return sampleBucket(connection.db);
  });
  bucket.catch(() => (bucket = undefined));
  return bucket;
}

async function storeSamples(samples: readonly Uint8Array[], store: SampleStoring): Promise<SampleData[]> {
  if (!storeConfig) throw new Error('this analysis pool was made without a sample store');
  const inputs: SampleInput[] = [];
  store.files.forEach((file, i) => {
    const bytes = samples[i];
    if (file && bytes) inputs.push({ ...file, bytes });
  });
  const stored = await storeSampleFiles(await connectedBucket(storeConfig), store.voiceId, inputs);
  return stored.map(sampleToData);
}

async function run(request: ThreadRequest): Promise<{ outcome: CloneOutcome; stored: SampleData[] }> {
  const outcome = await analyseClone(request.samples, request.limits);
  const stored = outcome.ok && request.store ? await storeSamples(request.samples, request.store) : [];
  return { outcome, stored };
}

parentPort?.on('message', (request: ThreadRequest) => {
  run(request)
    .then((done) => parentPort!.postMessage({ id: request.id, ...done } satisfies ThreadReply))
    .catch((err: unknown) =>
      parentPort!.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err), storeUnavailable: isStoreUnavailable(err) } satisfies ThreadReply),
    );
});
