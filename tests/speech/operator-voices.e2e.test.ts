import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PREMADE_VOICES } from '@platform/speech-engine';
import { speakPcm } from './support/speak-pcm';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';

/**
 * Voices an operator adds (docs/operations.md, "Adding voices"): a voices directory holding a
 * multi-speaker Piper voice (a German stand-in that says every phoneme as a sine of 150 Hz + 100 Hz
 * per speaker, tests/fixtures/piper-tone) and a `voices.json` putting two voices on two of its
 * speakers, served by a real gateway and worker process. The lists show the voices and the model's
 * languages; each voice speaks with its own speaker; the hosted ids run the neural model for
 * German, the one language installed, and eSpeak NG for English.
 */
const TONE = path.resolve(__dirname, '../fixtures/piper-tone');
const TONE_VOICE = 'de_DE-tone-multi';
const NEURAL = 'piper_en_us_v1';
const HOSTED = 'eleven_multilingual_v2';
const HANS = PREMADE_VOICES.find((v) => v.name === 'Hans')!.voice_id;
const RACHEL = PREMADE_VOICES.find((v) => v.name === 'Rachel')!.voice_id;
const CATALOGUE = {
  voices: [
    {
      voice_id: 'tone_low',
      name: 'Tief',
      model: TONE_VOICE,
      speaker: 'low',
      description: 'The low speaker.',
      labels: { gender: 'male', accent: 'german' },
    },
    { voice_id: 'tone_high', name: 'Hoch', model: TONE_VOICE, speaker: 2, labels: { gender: 'female' } },
  ],
};

let dir: string;
let stack: SpeechStack;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voices-'));
  for (const file of [`${TONE_VOICE}.onnx`, `${TONE_VOICE}.onnx.json`])
    fs.copyFileSync(path.join(TONE, file), path.join(dir, file));
  fs.writeFileSync(path.join(dir, 'voices.json'), JSON.stringify(CATALOGUE));
  stack = await startSpeechStack({ workers: 1, voicesDir: dir, accountSpeech: true, frameTimeoutMs: 60_000 });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}, 30_000);

const headers = () => ({ 'content-type': 'application/json', 'xi-api-key': stack.apiKey });

async function getJson<T>(route: string): Promise<T> {
  const res = await fetch(`${stack.url}${route}`, { headers: headers() });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

const speak = (voiceId: string, body: Record<string, unknown>) => speakPcm(stack, voiceId, body);

/** A pure tone's frequency from its upward zero crossings. */
function toneHz(pcm: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < pcm.length; i++) if (pcm[i - 1]! < 0 && pcm[i]! >= 0) crossings++;
  return crossings / (pcm.length / rate);
}

describe('voices an operator adds to the voices directory', () => {
  it('GET /v1/models: the neural model speaks the installed voice’s language, German', async () => {
    const { models } = await getJson<{ models: { model_id: string; languages: { language_id: string }[] }[] }>(
      '/v1/models',
    );
    expect(models.map((m) => m.model_id)).toEqual(['espeak_ng_v1', NEURAL]);
    expect(models[1]!.languages.map((l) => l.language_id)).toEqual(['de']);
  });

  it('GET /v1/voices, /v1/voices/{id} and /v2/voices list the catalogue’s voices beside the premade ones', async () => {
    const { voices } = await getJson<{ voices: { voice_id: string; name: string; category: string }[] }>('/v1/voices');
    const ids = voices.map((v) => v.voice_id);
    expect(ids).toEqual(expect.arrayContaining(['tone_low', 'tone_high', HANS, RACHEL]));
    const low = await getJson<{ name: string; description: string; labels: Record<string, string>; category: string }>(
      '/v1/voices/tone_low',
    );
    expect(low).toMatchObject({
      name: 'Tief',
      description: 'The low speaker.',
      category: 'premade',
      labels: { gender: 'male', accent: 'german', language: 'de' },
    });
    const found = await getJson<{ voices: { voice_id: string }[] }>('/v2/voices?search=Hoch');
    expect(found.voices.map((v) => v.voice_id)).toEqual(['tone_high']);
  });

  it('each catalogue voice speaks with its own speaker of the multi-speaker model', async () => {
    const text = { text: 'Guten Morgen. Wie geht es dir heute?', model_id: NEURAL };
    const low = await speak('tone_low', text);
    const high = await speak('tone_high', text);
    expect(low.model).toBe(NEURAL);
    expect(toneHz(low.pcm, 16000)).toBeCloseTo(150, -1);
    expect(toneHz(high.pcm, 16000)).toBeCloseTo(350, -1);
  }, 60_000);

  it('the hosted ids run the neural model for German (installed) and eSpeak NG for English (not installed)', async () => {
    const german = await speak(HANS, { text: 'Hallo zusammen.', model_id: HOSTED });
    expect(german.model).toBe(NEURAL);
    // Hans has no speaker of his own: German's first, speaker 0 (150 Hz), coloured to his pitch.
    expect(german.pcm.length).toBeGreaterThan(0);
    expect((await speak(RACHEL, { text: 'Hello there.', model_id: HOSTED })).model).toBe('espeak_ng_v1');
    const refused = await fetch(`${stack.url}/v1/text-to-speech/${RACHEL}`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ text: 'Hello there.', model_id: NEURAL }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { detail: { message: string } }).detail.message).toMatch(
      /speaks the languages of the installed Piper voices \(de\)/,
    );
  }, 60_000);
});
