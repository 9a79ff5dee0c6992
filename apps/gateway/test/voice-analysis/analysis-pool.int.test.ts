import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { SampleDoc, SpeechStore } from '@platform/speech-store';
import { testStore } from '../../../../tests/voices/helpers';
import { stackEnv } from '@platform/testing';
import { AnalysisPoolFull, SampleStoreUnavailable, createAnalysisPool, type AnalysisPool } from '../../src/voice-analysis';

/**
 * The analysis thread pool with real threads, ffmpeg and MongoDB (the built thread entry: `npx tsc -b
 * apps/gateway`).
 */
const LIMITS = { maxFileSeconds: 120, minFileSeconds: 1 };
const speech = () => execFileSync('espeak-ng', ['-v', 'en+m3', '--stdout', 'The quick brown fox jumps over the lazy dog, twice over.'], { maxBuffer: 16 * 1024 * 1024 });

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
    expect(outcome).toMatchObject({ ok: true, engineParams: expect.any(Object), analysis: { f0MedianHz: expect.any(Number) } });
    expect(stored).toEqual([]);
    expect(pool.started()).toBe(1);
  });

  it('stores the samples asked for, when they make a voice, with their SHA-256; the kept ones are analysed, not stored', async () => {
    pool = createAnalysisPool({ threads: 1, maxQueued: 0, sampleStore: { mongoUrl: stackEnv().MONGO_URL, dbName: store.connection.name } });
    const kept = speech();
    const added = Buffer.concat([speech()]);
    const copy = Buffer.from(added);
    const { outcome, stored } = await pool.analyse([kept, added], LIMITS, { voiceId: 'voice1', files: [null, { fileName: 'new.wav', mimeType: 'audio/wav' }] });
    expect(outcome.ok).toBe(true);
    // Moved to the thread, not copied.
    expect(added.length).toBe(0);
    expect(stored).toEqual([
      { sample_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/), file_name: 'new.wav', mime_type: 'audio/wav', size_bytes: copy.length, hash: createHash('sha256').update(copy).digest('hex'), file_id: expect.anything() },
    ]);
    expect((await readFile(stored[0]!.file_id)).equals(copy)).toBe(true);
    expect((await storedFiles()).map((f) => f.filename)).toEqual(['voice1/new.wav']);
  });

  it('stores nothing for samples refused', async () => {
    pool = createAnalysisPool({ threads: 1, maxQueued: 0, sampleStore: { mongoUrl: stackEnv().MONGO_URL, dbName: store.connection.name } });
    const before = (await storedFiles()).length;
    const file = { fileName: 'x', mimeType: 'audio/wav' };
    const { outcome, stored } = await pool.analyse([speech(), Buffer.from('not audio at all')], LIMITS, { voiceId: 'voice2', files: [file, file] });
    expect(outcome).toEqual({ ok: false, failure: { kind: 'not_audio', file: 1 } });
    expect(stored).toEqual([]);
    expect(await storedFiles()).toHaveLength(before);
  });

  it('a store it cannot reach fails the job as SampleStoreUnavailable, and the thread serves the next job', async () => {
    // Nothing listens on port 1: the thread's connection fails its server selection.
    pool = createAnalysisPool({ threads: 1, maxQueued: 1, sampleStore: { mongoUrl: 'mongodb://127.0.0.1:1/?directConnection=true', dbName: 'speech' } });
    const file = { fileName: 'a.wav', mimeType: 'audio/wav' };
    await expect(pool.analyse([speech()], LIMITS, { voiceId: 'voice3', files: [file] })).rejects.toBeInstanceOf(SampleStoreUnavailable);
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
