import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import {
  readSampleFile,
  sampleBucket,
  sampleToData,
  storeSampleFiles,
  type SampleData,
} from '@platform/speech-store/sample-files';
import { connectMongo, isStoreUnavailable } from '@platform/stores';
import { analyseClone, type CloneOutcome } from './clone-analysis';
import type { SampleStoreConfig, SampleStoring, ThreadFailure, ThreadReply, ThreadRequest } from './analysis-pool';

/**
 * Entry of an analysis worker thread (`createAnalysisPool`): one job at a time. The sample bytes arrive
 * transferred (not copied); a voice's kept samples are read, and samples that make a voice are stored, from
 * here, over the thread's own connection, so the server's event loop never reads, cuts, serialises or hashes
 * them.
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

/** The samples bucket, connected at the first job that needs it; a failed connection is tried again by the next. */
function bucketFor(store: SampleStoring): Promise<ReturnType<typeof sampleBucket>> {
  if (!storeConfig)
    return Promise.reject(new Error(`this analysis pool was made without a sample store (voice ${store.voiceId})`));
  bucket ??= connectMongo(storeConfig.mongoUrl, storeConfig.dbName).then((connection) => {
    if (!connection.db) throw new Error('mongo: not connected');
    return sampleBucket(connection.db);
  });
  bucket.catch(() => (bucket = undefined));
  return bucket;
}

/** A kept sample's file is gone: another change of the voice dropped it while this one was being made. */
class KeptSampleGone extends Error {}

async function readKept(store: SampleStoring): Promise<Uint8Array[]> {
  if (store.kept.length === 0) return [];
  const bucket = await bucketFor(store);
  const kept: Uint8Array[] = [];
  for (const sample of store.kept) {
    const bytes = await readSampleFile(bucket, sample.fileId);
    if (!bytes) throw new KeptSampleGone(`the sample ${sample.fileName} of voice ${store.voiceId} is gone`);
    kept.push(bytes);
  }
  return kept;
}

async function storeSamples(samples: readonly Uint8Array[], store: SampleStoring): Promise<SampleData[]> {
  // The pool sends a name for every sample, in order; anything else is a bug, not an empty sample to store.
  if (store.files.length !== samples.length)
    throw new Error(`${samples.length} samples arrived with ${store.files.length} file names`);
  const inputs = samples.map((bytes, i) => ({ ...store.files[i]!, bytes }));
  const stored = await storeSampleFiles(await bucketFor(store), store.voiceId, inputs);
  return stored.map(sampleToData);
}

async function run(request: ThreadRequest): Promise<{ outcome: CloneOutcome; stored: SampleData[] }> {
  const kept = request.store ? await readKept(request.store) : [];
  const outcome = await analyseClone([...kept, ...request.samples], request.limits);
  const stored = outcome.ok && request.store ? await storeSamples(request.samples, request.store) : [];
  return { outcome, stored };
}

function failureOf(err: unknown): ThreadFailure {
  if (err instanceof KeptSampleGone) return 'voice_changed';
  return isStoreUnavailable(err) ? 'store_unavailable' : 'failed';
}

parentPort?.on('message', (request: ThreadRequest) => {
  run(request)
    .then((done) => parentPort!.postMessage({ id: request.id, ...done } satisfies ThreadReply))
    .catch((err: unknown) =>
      parentPort!.postMessage({
        id: request.id,
        error: err instanceof Error ? err.message : String(err),
        failure: failureOf(err),
      } satisfies ThreadReply),
    );
});
