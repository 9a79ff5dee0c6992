import { pcmSamples, rms } from './support/audio';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';

/**
 * `seed` on the neural model (docs/speech.md, "Request options"): the Piper voice samples noise
 * inside its ONNX graph, so two requests give different audio; with a seed they give the same bytes.
 * A coloured voice (every voice but the model's own speaker) is always rendered without that noise.
 */
const JOE = 'jo5Pq8Nr2Lm7Kv4Ws9Xz';
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const TEXT = 'The same words, spoken twice.';

let stack: SpeechStack;
beforeAll(async () => {
  stack = await startSpeechStack({ workers: 1, concurrency: 1, frameTimeoutMs: 90_000, neural: true });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

async function speak(extra: Record<string, unknown>, voiceId = JOE): Promise<Buffer> {
  const res = await fetch(`${stack.url}/v1/text-to-speech/${voiceId}?output_format=pcm_22050`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify({ text: TEXT, model_id: 'piper_en_us_v1', ...extra }),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('seed on the neural model', () => {
  it('without a seed two requests differ (sampling noise); with one they are the same bytes, and speech', async () => {
    const [a, b] = [await speak({}), await speak({})];
    expect(a.equals(b)).toBe(false);
    const [c, d] = [await speak({ seed: 12345 }), await speak({ seed: 12345 })];
    expect(c.equals(d)).toBe(true);
    expect(rms(pcmSamples(c))).toBeGreaterThan(500);
    expect(c.length / 2 / 22_050).toBeGreaterThan(1);
  }, 120_000);

  it('a coloured voice is rendered without the noise: two requests without a seed are the same bytes', async () => {
    const [a, b] = [await speak({}, RACHEL), await speak({}, RACHEL)];
    expect(a.equals(b)).toBe(true);
    expect(rms(pcmSamples(a))).toBeGreaterThan(500);
    // Not Joe's audio: the colour moved it.
    expect(a.equals(await speak({ seed: 1 }))).toBe(false);
  }, 120_000);
});
