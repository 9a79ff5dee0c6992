import os from 'node:os';
import { workerData } from 'node:worker_threads';
import type { SandboxedJob } from 'bullmq';
import type { VoiceAnalysisJobData, VoiceAnalysisJobResult } from '@platform/speech-jobs';
import { describeSampleFile, readSampleFile, sampleBucket } from '@platform/speech-store/sample-files';
import { connectMongo } from '@platform/stores';
import { analyseClone, nearestSpeaker, type CloneOutcome } from '@platform/voice-analysis';
import type { AnalysisThreadData } from './analysis-worker';

/**
 * A BullMQ sandboxed processor (`startVoiceAnalysisWorker`), run on a worker thread of its own: the
 * samples are read from GridFS, decoded (ffmpeg), analysed and hashed here, so the worker's event loop
 * (which streams synthesis audio in real time) never holds seconds of CPU or tens of megabytes for it.
 * The job only reads: re-running it after its worker died answers the same and stores nothing twice.
 */
// The lowest CPU priority for this thread (on Linux `setpriority(0)` applies to the calling thread
// only) and so for the ffmpeg processes it starts, which inherit it: real-time synthesis keeps its
// cores and analysis waits, not the other way round.
try {
  os.setPriority(19);
} catch {
  // not permitted on this platform: analysis then runs at normal priority
}

const storeConfig = workerData as AnalysisThreadData;
let bucket: Promise<ReturnType<typeof sampleBucket>> | undefined;

/** The samples bucket, connected at the first job; a failed connection is tried again by the next. */
function samples(): Promise<ReturnType<typeof sampleBucket>> {
  bucket ??= connectMongo(storeConfig.mongoUrl, storeConfig.dbName).then((connection) => {
    if (!connection.db) throw new Error('mongo: not connected');
    return sampleBucket(connection.db);
  });
  bucket.catch(() => (bucket = undefined));
  return bucket;
}

/** A sample's file is gone: another change of the voice dropped it, or its request gave up and removed it. */
class SampleGone extends Error {}

async function readAll(refs: readonly { fileName: string; fileId: string }[], voiceId: string): Promise<Buffer[]> {
  const files = await samples();
  const read: Buffer[] = [];
  for (const ref of refs) {
    const bytes = await readSampleFile(files, ref.fileId);
    if (!bytes) throw new SampleGone(`the sample ${ref.fileName} of voice ${voiceId} is gone`);
    read.push(bytes);
  }
  return read;
}

export default async function analyseVoiceSamples(
  job: SandboxedJob<VoiceAnalysisJobData, VoiceAnalysisJobResult>,
): Promise<VoiceAnalysisJobResult> {
  const { voiceId, kept, added, limits } = job.data;
  let bytes: Buffer[];
  try {
    bytes = await readAll([...kept, ...added], voiceId);
  } catch (err) {
    if (err instanceof SampleGone) return { failure: 'voice_changed', message: err.message };
    throw err;
  }
  const outcome = withSpeaker(await analyseClone(bytes, limits));
  const described = outcome.ok ? added.map((file, i) => describeSampleFile(file, bytes[kept.length + i]!)) : [];
  return { outcome, samples: described };
}

/**
 * With several installed speakers, a clone starts from the one nearest to its samples
 * (`nearestSpeaker`), kept in its engine parameters so the voice keeps it; it is then coloured to
 * the samples' pitch as with one speaker.
 */
function withSpeaker(outcome: CloneOutcome): CloneOutcome {
  if (!outcome.ok) return outcome;
  const speaker = nearestSpeaker(outcome.analysis, storeConfig.speakers ?? [], outcome.engineParams.voice);
  return speaker ? { ...outcome, engineParams: { ...outcome.engineParams, speaker } } : outcome;
}
