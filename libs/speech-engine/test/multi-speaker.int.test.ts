import path from 'node:path';
import { DEFAULT_VOICE_SETTINGS, loadPiperVoice, synthesizePiperPcm } from '../src';

/** The multi-speaker stand-in: a sine of 150 Hz + 100 Hz per speaker id (tests/fixtures/piper-tone). */
const TONE = path.resolve(__dirname, '../../../tests/fixtures/piper-tone');

/** Frequency of a pure tone from its upward zero crossings. */
function toneHz(pcm: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < pcm.length; i++) if (pcm[i - 1]! < 0 && pcm[i]! >= 0) crossings++;
  return crossings / (pcm.length / rate);
}

describe('a multi-speaker Piper voice', () => {
  it("passes the speaker to the model's sid input: each speaker is its own voice", async () => {
    const voice = await loadPiperVoice(TONE, { name: 'de_DE-tone-multi' });
    expect(voice.config.num_speakers).toBe(3);
    const say = (speaker: number) =>
      synthesizePiperPcm(voice, 'Guten Morgen, wie geht es dir?', DEFAULT_VOICE_SETTINGS, undefined, true, speaker);
    const [low, high] = await Promise.all([say(0), say(2)]);
    expect(low.length).toBeGreaterThan(22050 / 2);
    expect(toneHz(low, 22050)).toBeCloseTo(150, -1);
    expect(toneHz(high, 22050)).toBeCloseTo(350, -1);
    await voice.inference.close();
  }, 30_000);
});
