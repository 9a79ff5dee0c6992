import { PREMADE_VOICES, espeakPitchHz, isEnglish } from '@platform/speech-engine';
import { analyseVoice, decodeAudio } from '@platform/voice-analysis';
import { espeakWav, REFERENCE_TEXT, wavFromPcm } from '../voices/audio';
import { speakPcm } from './support/speak-pcm';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';

/**
 * Every English voice through the neural model (Piper en_US-joe-medium, served by real worker
 * processes): the hosted API's model ids pick it for English and eSpeak NG for other languages,
 * and each voice keeps its pitch on the model's one speaker. Pitch is measured with the cloning
 * analysis (YIN, `analyseVoice`): a premade voice's median within 5 % of the pitch eSpeak NG's
 * calibration gives its variant and pitch setting, a clone's within 5 % of its samples' median.
 */
const HOSTED = 'eleven_multilingual_v2';
const NEURAL = 'piper_en_us_v1';
const TEXT =
  'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well.';
/** English premade voices but Joe, who is the neural model's own speaker and speaks as himself. */
const ENGLISH_PREMADE = PREMADE_VOICES.filter((v) => isEnglish(v.engine.voice) && !v.engine.neural);
const HANS = PREMADE_VOICES.find((v) => v.name === 'Hans')!.voice_id;
const RACHEL = PREMADE_VOICES.find((v) => v.name === 'Rachel')!.voice_id;

let stack: SpeechStack;
beforeAll(async () => {
  stack = await startSpeechStack({
    workers: 1,
    concurrency: 2,
    frameTimeoutMs: 90_000,
    neural: true,
    accountSpeech: true,
  });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

const headers = () => ({ 'content-type': 'application/json', 'xi-api-key': stack.apiKey });

const speak = (voiceId: string, body: Record<string, unknown>) => speakPcm(stack, voiceId, body);

async function medianF0(wav: Buffer): Promise<number> {
  return analyseVoice([(await decodeAudio(wav, { maxDurationSec: 120 })).samples]).f0MedianHz;
}

describe('the hosted model ids follow the language', () => {
  it('GET /v1/models says which model the hosted ids run', async () => {
    const res = await fetch(`${stack.url}/v1/models`, { headers: headers() });
    const { models } = (await res.json()) as { models: { model_id: string; description: string }[] };
    const [espeak, neural] = models;
    expect(models.map((m) => m.model_id)).toEqual(['espeak_ng_v1', NEURAL]);
    expect(neural!.description).toContain(`${HOSTED},`);
    expect(neural!.description).toMatch(/run this model for English/);
    expect(espeak!.description).toMatch(/run this model for languages other than English/);
  });

  it('runs the neural model for an English voice, eSpeak NG for a German voice or a German language_code', async () => {
    expect((await speak(RACHEL, { text: 'Hello there.', model_id: HOSTED })).model).toBe(NEURAL);
    expect((await speak(HANS, { text: 'Hallo zusammen.', model_id: HOSTED })).model).toBe('espeak_ng_v1');
    expect(
      (await speak(RACHEL, { text: 'Hallo zusammen.', model_id: 'eleven_flash_v2_5', language_code: 'de' })).model,
    ).toBe('espeak_ng_v1');
  }, 120_000);
});

describe('every English voice on the neural model keeps its pitch', () => {
  it.each(ENGLISH_PREMADE.map((v) => [v.name, v] as const))(
    '%s: median pitch within 5 % of its own',
    async (_name, voice) => {
      const { pcm, model } = await speak(voice.voice_id, { text: TEXT, model_id: HOSTED });
      expect(model).toBe(NEURAL);
      const target = espeakPitchHz(voice.engine.variant, voice.engine.pitch)!;
      const measured = await medianF0(wavFromPcm(pcm, 16_000));
      expect(Math.abs(measured / target - 1)).toBeLessThan(0.05);
    },
    120_000,
  );

  it('a cloned voice: median pitch within 5 % of its samples', async () => {
    // A high voice, far from the model's own speaker (about 90 Hz).
    const sample = espeakWav(REFERENCE_TEXT, 'en+f2', 70);
    const form = new FormData();
    form.append('name', 'Neural clone');
    form.append('files', new Blob([new Uint8Array(sample)], { type: 'audio/wav' }), 'sample.wav');
    const added = await fetch(`${stack.url}/v1/voices/add`, {
      method: 'POST',
      headers: { 'xi-api-key': stack.apiKey },
      body: form,
    });
    expect(added.status).toBe(200);
    const { voice_id } = (await added.json()) as { voice_id: string };
    const { pcm, model } = await speak(voice_id, { text: TEXT, model_id: HOSTED });
    expect(model).toBe(NEURAL);
    const target = await medianF0(sample);
    const measured = await medianF0(wavFromPcm(pcm, 16_000));
    expect(target).toBeGreaterThan(180);
    expect(Math.abs(measured / target - 1)).toBeLessThan(0.05);
  }, 120_000);
});
