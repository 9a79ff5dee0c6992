import { execFileSync } from 'node:child_process';
import { newId, stageSampleFiles } from '@platform/speech-store';
import type { MeasuredSpeaker } from '@platform/voice-analysis';
import { startAnalysisJobs, type AnalysisJobs } from './analysis-jobs';

/**
 * A new clone starts from the installed speaker nearest its samples: the analysis thread, given the
 * speakers as a worker measured them at boot, stores the nearest one in the clone's engine parameters.
 * Two English speakers with the same spectral envelope, one low (100 Hz) and one high (230 Hz): a low
 * recording gets the low one and a high recording the high one. A German speaker is never chosen for
 * an English clone.
 */
const LIMITS = { maxFileSeconds: 120, minFileSeconds: 1 };
const envelope = { spectralCentroidHz: 1800, formant1Hz: 550, formant2Hz: 1700 };
const SPEAKERS: MeasuredSpeaker[] = [
  { model: 'en_US-pair-medium', id: 0, language: 'en', features: { f0MedianHz: 100, ...envelope } },
  { model: 'en_US-pair-medium', id: 1, language: 'en', features: { f0MedianHz: 230, ...envelope } },
  { model: 'de_DE-one-medium', id: 0, language: 'de', features: { f0MedianHz: 231, ...envelope } },
];
/** eSpeak NG reading a sentence with a variant and pitch setting: a recording of known median pitch. */
const recording = (variant: string, pitch: number) =>
  execFileSync(
    'espeak-ng',
    [
      '-v',
      `en+${variant}`,
      '-p',
      String(pitch),
      '--stdout',
      'The quick brown fox jumps over the lazy dog, twice over.',
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );

let jobs: AnalysisJobs;
beforeAll(async () => {
  jobs = await startAnalysisJobs('clone-speaker', SPEAKERS);
}, 30_000);
afterAll(() => jobs.close());

async function clone(bytes: Buffer): Promise<{ speaker?: unknown; f0: number }> {
  const voiceId = newId();
  const [added] = await stageSampleFiles(jobs.store.samples, voiceId, [
    { fileName: 'sample.wav', mimeType: 'audio/wav', bytes },
  ]);
  const result = await jobs.run({ voiceId, kept: [], added: [added!], limits: LIMITS });
  if (!('outcome' in result) || !result.outcome.ok) throw new Error(`analysis failed: ${JSON.stringify(result)}`);
  return { speaker: result.outcome.engineParams.speaker, f0: result.outcome.analysis.f0MedianHz };
}

describe('the installed speaker a new clone starts from', () => {
  it('is the nearest of its language, kept in its engine parameters', async () => {
    const low = await clone(recording('m3', 20));
    const high = await clone(recording('f3', 80));
    // The recordings are where the test needs them: one near each speaker.
    expect(low.f0).toBeLessThan(150);
    expect(high.f0).toBeGreaterThan(170);
    expect(low.speaker).toEqual({ model: 'en_US-pair-medium', id: 0 });
    expect(high.speaker).toEqual({ model: 'en_US-pair-medium', id: 1 });
  }, 60_000);
});
