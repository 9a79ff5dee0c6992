import { DEFAULT_VOICE_SETTINGS, renderParams, synthesizePcm, ENGINE_SAMPLE_RATE } from '@platform/speech-engine';
import { resolveVoice, type SpeechStore } from '@platform/speech-store';
import { analyseVoice, decodeAudio } from '@platform/voice-analysis';
import { as, startApi, uploadForm } from './api-harness';
import { espeakWav, REFERENCE_TEXT, wavFromPcm } from './audio';
import { testStore } from './helpers';

/**
 * Cloning quality: reference recordings made with the engine at clearly different pitches and
 * voices (a low male and a high female voice), each cloned through the API, then the same
 * sentence synthesised by the engine with each clone: each clone's median pitch must be within
 * 15 % of its reference, and nearer its own reference than the other.
 */
const SENTENCE = 'Every clone should sound like the voice it was made from, more or less.';

async function medianF0(wav: Buffer): Promise<number> {
  const decoded = await decodeAudio(wav, { maxDurationSec: 120 });
  return analyseVoice([decoded.samples]).f0MedianHz;
}

let store: SpeechStore;
let closeStore: () => Promise<void>;
let api: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  ({ store, close: closeStore } = await testStore());
  api = await startApi(store);
});
afterAll(async () => {
  await api.close();
  await closeStore();
});

it('clones a low male and a high female voice so that each clone keeps its own pitch', async () => {
  const references = {
    low: espeakWav(REFERENCE_TEXT, 'en+m3', 20),
    high: espeakWav(REFERENCE_TEXT, 'en+f3', 80),
  };
  const refF0 = { low: await medianF0(references.low), high: await medianF0(references.high) };
  expect(refF0.high / refF0.low).toBeGreaterThan(2); // clearly different voices

  const cloneF0: Record<'low' | 'high', number> = { low: 0, high: 0 };
  for (const which of ['low', 'high'] as const) {
    const res = await fetch(`${api.url}/voices/add`, {
      method: 'POST',
      headers: as('cloner'),
      body: uploadForm({ name: `${which} clone` }, [{ name: `${which}.wav`, bytes: references[which] }]),
    });
    expect(res.status).toBe(200);
    const { voice_id } = (await res.json()) as { voice_id: string };
    // What the pipeline does: resolve the voice, apply the (default) settings, run the engine.
    const voice = await resolveVoice(store, { accountId: 'cloner', voiceId: voice_id });
    const pcm = await synthesizePcm(SENTENCE, renderParams(voice.engineParams, { ...DEFAULT_VOICE_SETTINGS, ...voice.settings }));
    cloneF0[which] = await medianF0(wavFromPcm(pcm, ENGINE_SAMPLE_RATE));
  }

  for (const [own, other] of [['low', 'high'], ['high', 'low']] as const) {
    expect(Math.abs(cloneF0[own] - refF0[own]) / refF0[own]).toBeLessThan(0.15);
    expect(Math.abs(cloneF0[own] - refF0[own])).toBeLessThan(Math.abs(cloneF0[own] - refF0[other]));
  }
}, 60_000);
