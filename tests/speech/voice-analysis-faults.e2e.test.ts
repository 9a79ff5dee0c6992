import { Queue } from 'bullmq';
import { voiceAnalysisQueue } from '@platform/speech-jobs';
import { connectMongo, connectRedis } from '@platform/stores';
import { stackEnv } from '@platform/testing';
import { eventually, type Platform } from '../gateway/platform';
import { espeakWav, REFERENCE_TEXT } from '../voices/audio';
import {
  encodeForm,
  longestSample,
  newCaller as newCallerOf,
  startUploadPlatform,
  type Caller,
} from './support/voice-uploads';

/**
 * Voice-sample analysis runs as a BullMQ job on the synthesis workers (docs/speech.md, "Cloning a voice"),
 * so its failure modes are the queue's: with no worker the upload is answered 503 with Retry-After once
 * the gateway's wait bound is over (nothing stored); a worker killed mid-analysis loses the job's lock and
 * another worker runs it again (BullMQ's stalled retry), and the voice is stored once. Real gateway and
 * worker processes; short analysis locks so a takeover is quick.
 */
const WAIT_MS = 1_500;

let platform: Platform;
let mongo: Awaited<ReturnType<typeof connectMongo>>;
let redis: Awaited<ReturnType<typeof connectRedis>>;
let queue: Queue;

beforeAll(async () => {
  platform = await startUploadPlatform(
    5,
    { VOICE_ANALYSIS_WAIT_MS: String(WAIT_MS) },
    { VOICE_ANALYSIS_LOCK_MS: '1500', VOICE_ANALYSIS_STALLED_INTERVAL_MS: '300' },
  );
  mongo = await connectMongo(stackEnv().MONGO_URL, platform.speech.db);
  redis = await connectRedis(stackEnv().REDIS_URL, { maxRetriesPerRequest: null });
  queue = new Queue(voiceAnalysisQueue(platform.speech.queue), { connection: redis });
}, 120_000);

afterAll(async () => {
  await queue?.close();
  await redis?.quit();
  await mongo?.close();
  await platform?.stop();
}, 30_000);

const newCaller = (name: string): Promise<Caller> => newCallerOf(platform, name);

async function add(caller: Caller, name: string, files: { name: string; bytes: Buffer }[]): Promise<Response> {
  const { body, contentType } = await encodeForm({ name }, files);
  return fetch(`${platform.publicUrl}/v1/voices/add`, {
    method: 'POST',
    headers: { 'xi-api-key': caller.key, 'content-type': contentType },
    body: new Uint8Array(body),
  });
}

async function clonedVoices(caller: Caller): Promise<{ voice_id: string; name: string }[]> {
  const res = await fetch(`${platform.publicUrl}/v1/voices`, { headers: { 'xi-api-key': caller.key } });
  const { voices } = (await res.json()) as { voices: { voice_id: string; name: string; category: string }[] };
  return voices.filter((v) => v.category === 'cloned');
}

const sampleFiles = () => mongo.db!.collection('voice_samples.files').find({}).toArray();

describe('voice analysis on the workers: failure modes', () => {
  it('with no worker running, an upload is answered 503 with Retry-After after the wait bound, and nothing is stored', async () => {
    const me = await newCaller('No worker');
    const filesBefore = (await sampleFiles()).length;
    for (const worker of platform.workers.splice(0)) await worker.stop();

    const res = await add(me, 'Nobody analyses', [{ name: 'a.wav', bytes: espeakWav(REFERENCE_TEXT, 'en+m3', 40) }]);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe(String(Math.ceil(WAIT_MS / 1000)));
    expect(await res.json()).toEqual({
      detail: { status: 'error', message: 'No worker could analyse the voice samples right now; try again shortly.' },
    });
    expect(await clonedVoices(me)).toEqual([]);
    // The staged sample is removed again and the job withdrawn: a worker started later finds nothing to do.
    await eventually(async () => (await sampleFiles()).length === filesBefore, 10_000);
    expect(await queue.count()).toBe(0);
    expect(await queue.getActiveCount()).toBe(0);

    // A worker back: the same upload makes the voice.
    await platform.startWorker();
    const again = await add(me, 'Analysed now', [{ name: 'a.wav', bytes: espeakWav(REFERENCE_TEXT, 'en+m3', 40) }]);
    expect(again.status).toBe(200);
    expect((await clonedVoices(me)).map((v) => v.name)).toEqual(['Analysed now']);
  }, 120_000);

  it('a worker killed mid-analysis: another worker runs the job again (stalled retry) and the voice is stored once', async () => {
    if (platform.workers.length === 0) await platform.startWorker();
    const me = await newCaller('Killed worker');
    // Long samples, so the analysis is still running when its worker is killed.
    const files = Array.from({ length: 4 }, (_, i) => ({ name: `long-${i}.flac`, bytes: longestSample() }));
    const pending = add(me, 'Survives a kill', files);

    let jobId = '';
    await eventually(async () => {
      const [active] = await queue.getJobs(['active']);
      jobId = active?.id ?? '';
      return jobId !== '';
    }, 60_000);
    const [victim] = platform.workers.splice(0);
    victim!.process.kill('SIGKILL');
    await victim!.exited;
    await platform.startWorker();

    const res = await pending;
    expect(res.status).toBe(200);
    const { voice_id } = (await res.json()) as { voice_id: string };
    // Run again after the lock lapsed: the job was taken back from the dead worker.
    const job = await queue.getJob(jobId);
    expect(job?.stalledCounter).toBeGreaterThanOrEqual(1);
    expect(await clonedVoices(me)).toEqual([expect.objectContaining({ voice_id, name: 'Survives a kill' })]);
    // Each sample stored once, under the voice.
    const stored = (await sampleFiles()).filter((f) => String(f.filename).startsWith(`${voice_id}/`));
    expect(stored.map((f) => f.filename).sort()).toEqual(files.map((f) => `${voice_id}/${f.name}`).sort());
    const voice = await fetch(`${platform.publicUrl}/v1/voices/${voice_id}`, { headers: { 'xi-api-key': me.key } });
    expect(((await voice.json()) as { samples: unknown[] }).samples).toHaveLength(files.length);
  }, 180_000);
});
