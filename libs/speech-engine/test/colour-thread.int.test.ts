import path from 'node:path';
import {
  applyVoiceColour,
  DEFAULT_VOICE_SETTINGS,
  loadPiperVoice,
  synthesizePiperPcm,
  yinTrack,
  type PiperVoice,
} from '../src';

// `npm test` fetches the voice into .stack/voices/piper (scripts/fetch-voices.mjs).
const dir = process.env.PIPER_VOICES_DIR ?? path.resolve(__dirname, '../../../.stack/voices/piper');
const TEXT = 'The birch canoe slid on the smooth planks.';

function medianF0(pcm: Int16Array, rate: number): number {
  const frames = yinTrack(
    Float32Array.from(pcm, (v) => v / 32768),
    { sampleRate: rate, minHz: 60, maxHz: 600 },
  ).filter((hz): hz is number => hz !== null);
  return [...frames].sort((a, b) => a - b)[frames.length >> 1]!;
}

describe("the voice colour on the neural model's inference thread", () => {
  let voice: PiperVoice;
  beforeAll(async () => {
    voice = await loadPiperVoice(dir);
  }, 60_000);

  it("colours the model's audio before it leaves the thread: the voice's pitch, the same samples as in process, every time", async () => {
    const rate = voice.config.audio.sample_rate;
    const colour = { pitchHz: 221, formantRatio: 1.25 };
    // Noiseless (a seeded job's rendering): the speaker's own audio is the same each time.
    const say = (c: typeof colour | null) =>
      synthesizePiperPcm(voice, TEXT, DEFAULT_VOICE_SETTINGS, undefined, true, 0, c);
    const [speaker, coloured, again] = await Promise.all([say(null), say(colour), say(colour)]);
    expect(medianF0(speaker, rate)).toBeLessThan(130);
    expect(Math.abs(medianF0(coloured, rate) / 221 - 1)).toBeLessThan(0.05);
    expect(coloured.length).toBe(speaker.length);
    expect(Buffer.from(again.buffer)).toEqual(Buffer.from(coloured.buffer));
    expect(Buffer.from(coloured.buffer)).toEqual(Buffer.from(applyVoiceColour(speaker, colour, rate).buffer));
  }, 60_000);
});
