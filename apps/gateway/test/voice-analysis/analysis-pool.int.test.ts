import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { AnalysisPoolFull, createAnalysisPool, type AnalysisPool } from '../../src/voice-analysis';

/** The analysis thread pool with real threads and ffmpeg (the built thread entry: `npx tsc -b apps/gateway`). */
const LIMITS = { maxFileSeconds: 120, minFileSeconds: 1 };
const speech = () => execFileSync('espeak-ng', ['-v', 'en+m3', '--stdout', 'The quick brown fox jumps over the lazy dog, twice over.'], { maxBuffer: 16 * 1024 * 1024 });

let pool: AnalysisPool;
afterEach(async () => {
  await pool?.close();
});

describe('voice analysis pool', () => {
  it('analyses on a thread and gives the samples back unchanged, with their SHA-256', async () => {
    pool = createAnalysisPool({ threads: 1, maxQueued: 0 });
    const wav = speech();
    const sent = Buffer.from(wav);
    const { outcome, samples, sha256 } = await pool.analyse([sent], LIMITS);
    expect(sha256).toEqual([createHash('sha256').update(wav).digest('hex')]);
    expect(outcome).toMatchObject({ ok: true, engineParams: expect.any(Object), analysis: { f0MedianHz: expect.any(Number) } });
    expect(samples).toHaveLength(1);
    expect(samples[0]!.equals(wav)).toBe(true);
    expect(pool.started()).toBe(1);
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
