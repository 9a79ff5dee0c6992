import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { newId, storeSampleFiles, type SampleDoc, type SpeechStore } from '@platform/speech-store';
import { testStore } from '../../../../tests/voices/helpers';
import { stackEnv } from '@platform/testing';
import {
  AnalysisPoolFull,
  SampleStoreUnavailable,
  VoiceChangedMeanwhile,
  createAnalysisPool,
  type AnalysisPool,
} from '../../src/voice-analysis';

/**
 * The analysis thread pool with real threads, ffmpeg and MongoDB (the built thread entry: `npx tsc -b
 * apps/gateway`).
 */
const LIMITS = { maxFileSeconds: 120, minFileSeconds: 1 };
const speech = () =>
  execFileSync('espeak-ng', ['-v', 'en+m3', '--stdout', 'The quick brown fox jumps over the lazy dog, twice over.'], {
    maxBuffer: 16 * 1024 * 1024,
  });

let pool: AnalysisPool;
let store: SpeechStore;
let closeStore: () => Promise<void>;
beforeAll(async () => {
  ({ store, close: closeStore } = await testStore());
});
afterAll(async () => closeStore());
afterEach(async () => {
  await pool?.close();
});

const readFile = async (id: SampleDoc['file_id']): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of store.samples.openDownloadStream(id)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};
const storedFiles = () => store.connection.db!.collection('voice_samples.files').find({}).toArray();

describe('voice analysis pool', () => {
  it('analyses on a thread and stores nothing when not asked to', async () => {
    pool = createAnalysisPool({ threads: 1, maxQueued: 0 });
    const { outcome, stored } = await pool.analyse([speech()], LIMITS);
    expect(outcome).toMatchObject({
      ok: true,
      engineParams: expect.any(Object),
      analysis: { f0MedianHz: expect.any(Number) },
    });
    expect(stored).toEqual([]);
    expect(pool.started()).toBe(1);
  });

  it('reads the kept samples, analyses them with the new ones and stores only the new, with their SHA-256', async () => {
    pool = createAnalysisPool({
      threads: 1,
      maxQueued: 0,
      sampleStore: { mongoUrl: stackEnv().MONGO_URL, dbName: store.connection.name },
    });
    const voiceId = newId();
    const [kept] = await storeSampleFiles(store.samples, voiceId, [
      { fileName: 'kept.wav', mimeType: 'audio/wav', bytes: speech() },
    ]);
    const added = Buffer.concat([speech()]);
    const copy = Buffer.from(added);
    const { outcome, stored } = await pool.analyse([added], LIMITS, {
      voiceId,
      kept: [{ fileName: 'kept.wav', fileId: kept!.file_id.toHexString() }],
      files: [{ fileName: 'new.wav', mimeType: 'audio/wav' }],
    });
    expect(outcome.ok).toBe(true);
    // Moved to the thread, not copied.
    expect(added.length).toBe(0);
    expect(stored).toEqual([
      {
        sample_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
        file_name: 'new.wav',
        mime_type: 'audio/wav',
        size_bytes: copy.length,
        hash: createHash('sha256').update(copy).digest('hex'),
        file_id: expect.anything(),
      },
    ]);
    expect((await readFile(stored[0]!.file_id)).equals(copy)).toBe(true);
    expect(
      (await storedFiles())
        .filter((f) => f.filename.startsWith(`${voiceId}/`))
        .map((f) => f.filename)
        .sort(),
    ).toEqual([`${voiceId}/kept.wav`, `${voiceId}/new.wav`]);
  });

  it('analyses a kept sample with the new ones (a kept file that is not audio is refused, as the first), and stores nothing for samples refused', async () => {
    pool = createAnalysisPool({
      threads: 1,
      maxQueued: 0,
      sampleStore: { mongoUrl: stackEnv().MONGO_URL, dbName: store.connection.name },
    });
    const voiceId = newId();
    const [kept] = await storeSampleFiles(store.samples, voiceId, [
      { fileName: 'kept.wav', mimeType: 'audio/wav', bytes: Buffer.from('not audio at all') },
    ]);
    const before = (await storedFiles()).length;
    const { outcome, stored } = await pool.analyse([speech()], LIMITS, {
      voiceId,
      kept: [{ fileName: 'kept.wav', fileId: kept!.file_id.toHexString() }],
      files: [{ fileName: 'x.wav', mimeType: 'audio/wav' }],
    });
    expect(outcome).toEqual({ ok: false, failure: { kind: 'not_audio', file: 0 } });
    expect(stored).toEqual([]);
    expect(await storedFiles()).toHaveLength(before);
  });

  it('a kept sample whose file is gone (dropped by another change meanwhile) fails the job as VoiceChangedMeanwhile', async () => {
    pool = createAnalysisPool({
      threads: 1,
      maxQueued: 0,
      sampleStore: { mongoUrl: stackEnv().MONGO_URL, dbName: store.connection.name },
    });
    const voiceId = newId();
    const [kept] = await storeSampleFiles(store.samples, voiceId, [
      { fileName: 'kept.wav', mimeType: 'audio/wav', bytes: speech() },
    ]);
    await store.samples.delete(kept!.file_id);
    const job = pool.analyse([speech()], LIMITS, {
      voiceId,
      kept: [{ fileName: 'kept.wav', fileId: kept!.file_id.toHexString() }],
      files: [{ fileName: 'x.wav', mimeType: 'audio/wav' }],
    });
    await expect(job).rejects.toBeInstanceOf(VoiceChangedMeanwhile);
    expect((await storedFiles()).filter((f) => f.filename === `${voiceId}/x.wav`)).toHaveLength(0);
  });

  it('a store it cannot reach fails the job as SampleStoreUnavailable, and the thread serves the next job', async () => {
    // Nothing listens on port 1: the thread's connection fails its server selection.
    pool = createAnalysisPool({
      threads: 1,
      maxQueued: 1,
      sampleStore: { mongoUrl: 'mongodb://127.0.0.1:1/?directConnection=true', dbName: 'speech' },
    });
    const file = { fileName: 'a.wav', mimeType: 'audio/wav' };
    await expect(
      pool.analyse([speech()], LIMITS, { voiceId: 'voice3', kept: [], files: [file] }),
    ).rejects.toBeInstanceOf(SampleStoreUnavailable);
    expect((await pool.analyse([speech()], LIMITS)).outcome.ok).toBe(true);
  });

  it('refuses at once beyond its threads and queue, and serves the rest', async () => {
    pool = createAnalysisPool({ threads: 1, maxQueued: 1 });
    const running = pool.analyse([speech()], LIMITS);
    const queued = pool.analyse([speech()], LIMITS);
    expect(pool.load()).toEqual({ running: 1, queued: 1 });
    await expect(pool.analyse([speech()], LIMITS)).rejects.toBeInstanceOf(AnalysisPoolFull);
    expect((await running).outcome.ok).toBe(true);
    expect((await queued).outcome.ok).toBe(true);
    expect(pool.started()).toBe(2);
  });

  it('reports refusals as data naming the file at fault', async () => {
    pool = createAnalysisPool({ threads: 1, maxQueued: 0 });
    const { outcome } = await pool.analyse([speech(), Buffer.from('not audio at all')], LIMITS);
    expect(outcome).toEqual({ ok: false, failure: { kind: 'not_audio', file: 1 } });
  });

  it('a job that overruns is failed and its thread replaced', async () => {
    pool = createAnalysisPool({ threads: 1, maxQueued: 1, jobTimeoutMs: 1 });
    await expect(pool.analyse([speech()], LIMITS)).rejects.toThrow(/took longer than 1 ms/);
    expect(pool.load()).toEqual({ running: 0, queued: 0 });
  });
});
