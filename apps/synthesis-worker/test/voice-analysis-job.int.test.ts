import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { SampleFileRef, VoiceAnalysisJobData } from '@platform/speech-jobs';
import { newId, removeStagedSampleFiles, stageSampleFiles, type SpeechStore } from '@platform/speech-store';
import { startAnalysisJobs, type AnalysisJobs } from './analysis-jobs';
/**
 * The voice-analysis job on a real BullMQ worker, its thread (the built entry: `npx tsc -b
 * apps/synthesis-worker`), ffmpeg and MongoDB: it reads samples from GridFS, analyses them and describes
 * the added ones, and writes nothing, so a re-run answers the same.
 */
const LIMITS = { maxFileSeconds: 120, minFileSeconds: 1 };
const speech = () =>
  execFileSync('espeak-ng', ['-v', 'en+m3', '--stdout', 'The quick brown fox jumps over the lazy dog, twice over.'], {
    maxBuffer: 16 * 1024 * 1024,
  });

let store: SpeechStore;
let jobs: AnalysisJobs;
beforeAll(async () => {
  jobs = await startAnalysisJobs('analysis-job');
  store = jobs.store;
}, 30_000);
afterAll(() => jobs.close());

const run = (data: VoiceAnalysisJobData, jobId?: string) => jobs.run(data, jobId);

async function stage(voiceId: string, name: string, bytes: Buffer): Promise<SampleFileRef & { mimeType: string }> {
  const [staged] = await stageSampleFiles(store.samples, voiceId, [{ fileName: name, mimeType: 'audio/wav', bytes }]);
  return staged!;
}

const storedFiles = () => store.connection.db!.collection('voice_samples.files').find({}).toArray();

describe('the voice-analysis job', () => {
  it('analyses the kept samples with the added ones and describes only the added, with their SHA-256; a re-run answers the same and writes nothing', async () => {
    const voiceId = newId();
    const kept = await stage(voiceId, 'kept.wav', speech());
    const bytes = speech();
    const added = await stage(voiceId, 'new.wav', bytes);
    const filesBefore = (await storedFiles()).length;
    const data = { voiceId, kept: [kept], added: [added], limits: LIMITS };

    const first = await run(data);
    expect(first).toEqual({
      outcome: { ok: true, analysis: expect.any(Object), engineParams: expect.any(Object) },
      samples: [
        {
          sample_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
          file_name: 'new.wav',
          mime_type: 'audio/wav',
          size_bytes: bytes.length,
          hash: createHash('sha256').update(bytes).digest('hex'),
          file_id: added.fileId,
        },
      ],
    });
    // The same job again (a worker died and another runs it): the same outcome, and nothing written.
    const second = await run(data);
    if (!('outcome' in first)) throw new Error('the first run answered voice_changed');
    expect(second).toEqual({
      outcome: first.outcome,
      samples: [{ ...first.samples[0], sample_id: expect.any(String) }],
    });
    expect(await storedFiles()).toHaveLength(filesBefore);
  }, 60_000);

  it('reports refusals as data naming the file at fault (kept ones first)', async () => {
    const voiceId = newId();
    const kept = await stage(voiceId, 'kept.wav', speech());
    const added = await stage(voiceId, 'x.wav', Buffer.from('not audio at all'));
    expect(await run({ voiceId, kept: [kept], added: [added], limits: LIMITS })).toEqual({
      outcome: { ok: false, failure: { kind: 'not_audio', file: 1 } },
      samples: [],
    });
  }, 60_000);

  it('a sample whose file is gone (dropped by another change meanwhile) answers voice_changed', async () => {
    const voiceId = newId();
    const kept = await stage(voiceId, 'kept.wav', speech());
    const added = await stage(voiceId, 'x.wav', speech());
    await removeStagedSampleFiles(store.samples, [kept]);
    expect(await run({ voiceId, kept: [kept], added: [added], limits: LIMITS })).toEqual({
      failure: 'voice_changed',
      message: `the sample kept.wav of voice ${voiceId} is gone`,
    });
  }, 60_000);
});
