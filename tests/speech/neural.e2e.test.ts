import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { median, mp3DurationSeconds, parseMp3, pcmSamples, pitchTrack, readAll, rms } from './support/audio';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';

/**
 * The neural model (Piper voice en_US-joe-medium, fetched by scripts/fetch-voices.mjs) served by
 * real worker processes beside eSpeak NG.
 */
const JOE = 'jo5Pq8Nr2Lm7Kv4Ws9Xz';
const HANS = 'pl8d5Kq3nT2xWm9zAe4F';
const TEXT = 'Hello there. This is the neural voice speaking.';

let stack: SpeechStack;
let client: ElevenLabsClient;
beforeAll(async () => {
  stack = await startSpeechStack({ workers: 1, concurrency: 1, frameTimeoutMs: 90_000, neural: true });
  client = new ElevenLabsClient({ apiKey: stack.apiKey, baseUrl: stack.url });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

async function pcm(model: string, voice = JOE, text = TEXT): Promise<Int16Array> {
  const res = await fetch(`${stack.url}/v1/text-to-speech/${voice}?output_format=pcm_16000`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify({ text, model_id: model }),
  });
  expect(res.status).toBe(200);
  return pcmSamples(Buffer.from(await res.arrayBuffer()));
}

describe('the neural model', () => {
  it('is listed by GET /v1/models with its languages', async () => {
    const res = await fetch(`${stack.url}/v1/models`, { headers: { 'xi-api-key': stack.apiKey } });
    const { models } = (await res.json()) as { models: { model_id: string; languages: { language_id: string }[] }[] };
    expect(models.map((m) => m.model_id)).toEqual(['espeak_ng_v1', 'piper_en_us_v1']);
    // Every English tag: the model speaks English (with its American accent) whatever the tag's region.
    expect(models[1]!.languages.map((l) => l.language_id)).toEqual([
      'en',
      'en-US',
      'en-GB',
      'en-GB-scotland',
      'en-029',
    ]);
  });

  it('speaks real audio that differs measurably from the eSpeak NG rendering of the same voice', async () => {
    const neural = await pcm('piper_en_us_v1');
    const formant = await pcm('espeak_ng_v1');
    expect(neural.length / 16000).toBeGreaterThan(1.5);
    expect(rms(neural)).toBeGreaterThan(500);
    // Different engines: different pitch contour and length for the same text and voice.
    const pitchNeural = median(pitchTrack(neural, 16000));
    const pitchFormant = median(pitchTrack(formant, 16000));
    const lengthRatio = neural.length / formant.length;
    expect(Math.abs(pitchNeural - pitchFormant) > 5 || Math.abs(lengthRatio - 1) > 0.05).toBe(true);
  }, 120_000);

  it('streams through the SDK as MP3', async () => {
    const { bytes } = await readAll(
      await client.textToSpeech.stream(JOE, { text: 'Streaming, neurally.', modelId: 'piper_en_us_v1' }),
    );
    expect(mp3DurationSeconds(parseMp3(bytes))).toBeGreaterThan(0.8);
  }, 120_000);

  it('refuses voices and languages no installed Piper voice speaks (here only English is installed)', async () => {
    for (const body of [
      { text: 'hallo', model_id: 'piper_en_us_v1', voice: HANS },
      { text: 'hallo', model_id: 'piper_en_us_v1', language_code: 'de', voice: JOE },
    ]) {
      const res = await fetch(`${stack.url}/v1/text-to-speech/${body.voice}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      const { detail } = (await res.json()) as { detail: { status: string; message: string } };
      expect(detail.status).toBe('bad_request');
      // The refusal names the languages the installed voices speak and the request's.
      expect(detail.message).toMatch(
        /installed Piper voices \(en\); this request is in (German|the voice's language \(de\))$/,
      );
    }
  });
});
