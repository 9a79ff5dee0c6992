import {
  applyVoiceColour,
  bestModel,
  colourArgs,
  espeakPitchHz,
  followsLanguage,
  isEnglish,
  modelCatalogue,
  modelForLanguage,
  neuralColour,
  resolveModel,
  VARIANTS,
  yinTrack,
} from '../src';

/** Which model a request runs, and how a voice is coloured on the neural model's one speaker. */
describe('model choice by language', () => {
  const served = modelCatalogue({ neural: true });
  it('a hosted model id runs the neural model where it is served, eSpeak NG where not', () => {
    expect(resolveModel('eleven_multilingual_v2', served)?.model_id).toBe('piper_en_us_v1');
    expect(resolveModel('eleven_multilingual_v2', modelCatalogue({ neural: false }))?.model_id).toBe('espeak_ng_v1');
    expect(resolveModel(undefined, served)?.model_id).toBe('espeak_ng_v1');
    expect(followsLanguage('eleven_v3')).toBe(true);
    expect(followsLanguage('piper_en_us_v1')).toBe(false);
  });
  it('moves to eSpeak NG for a language other than English, only when the model follows the language', () => {
    const neural = resolveModel('piper_en_us_v1', served)!;
    expect(modelForLanguage(neural, 'de').model_id).toBe('espeak_ng_v1');
    expect(modelForLanguage(neural, 'en-GB').model_id).toBe('piper_en_us_v1');
    expect(bestModel('de', served).model_id).toBe('espeak_ng_v1');
  });
  it('knows English by its tag or eSpeak NG voice', () => {
    for (const tag of ['en', 'en-US', 'en-GB-scotland', 'en-029', 'en-gb']) expect(isEnglish(tag)).toBe(true);
    for (const tag of ['de', 'es-419', 'eo', 'english']) expect(isEnglish(tag)).toBe(false);
  });
});

describe('voice colour', () => {
  it("reads a variant's pitch in hertz from its calibration curve, exactly at the measured points", () => {
    const m3 = VARIANTS.find((v) => v.variant === 'm3')!;
    expect(espeakPitchHz('m3', 0)).toBeCloseTo(m3.f0AtPitch[0], 6);
    expect(espeakPitchHz('m3', 50)).toBeCloseTo(m3.f0AtPitch[2], 6);
    expect(espeakPitchHz('m3', 99)).toBeCloseTo(m3.f0AtPitch[4], 6);
    const between = espeakPitchHz('m3', 60)!;
    expect(between).toBeGreaterThan(m3.f0AtPitch[2]);
    expect(between).toBeLessThan(m3.f0AtPitch[3]);
    expect(espeakPitchHz('nope', 50)).toBeNull();
  });
  it('leaves the neural speaker as he is, and shifts formants part of the way a higher voice goes', () => {
    expect(neuralColour({ variant: 'm1', pitch: 42, neural: 'en_US-joe-medium' })).toBeNull();
    const high = neuralColour({ variant: 'f3', pitch: 55 })!;
    expect(high.pitchHz).toBeGreaterThan(200);
    expect(high.formantRatio).toBeGreaterThan(1.1);
    expect(high.formantRatio).toBeLessThanOrEqual(1.25);
    expect(neuralColour({ variant: 'm1', pitch: 20 })!.formantRatio).toBeLessThan(1);
  });
  it("runs Praat's Change gender with the voice's formant ratio and pitch median", () => {
    expect(colourArgs({ pitchHz: 226.217, formantRatio: 1.25 }, '/t/in.wav', '/t/out.wav')).toEqual([
      '--run',
      expect.stringMatching(/praat\/change-voice\.praat$/),
      '/t/in.wav',
      '/t/out.wav',
      '1.2500',
      '226.22',
    ]);
  });
  it("moves a voiced piece's median pitch to the voice's, at the same length; a piece of a few milliseconds passes through", async () => {
    const rate = 22050;
    const vowel = syntheticVowel(100, rate);
    const coloured = await applyVoiceColour(vowel, { pitchHz: 220, formantRatio: 1.2 });
    expect(Math.abs(coloured.length - vowel.length)).toBeLessThan(rate * 0.01);
    const track = yinTrack(
      Float32Array.from(coloured, (v) => v / 32768),
      { sampleRate: rate, minHz: 60, maxHz: 600 },
    ).filter((hz): hz is number => hz !== null);
    expect(track.length).toBeGreaterThan(50);
    const sorted = [...track].sort((a, b) => a - b);
    expect(sorted[sorted.length >> 1]! / 220).toBeCloseTo(1, 1);
    // No octave errors: every voiced frame within a fifth of the target.
    expect(track.filter((hz) => hz > 330 || hz < 147)).toEqual([]);
    const tiny = new Int16Array(200).fill(1000);
    expect(await applyVoiceColour(tiny, { pitchHz: 220, formantRatio: 1.2 })).toBe(tiny);
  });
});

/** One second of a vowel (/a/: formants 700, 1220 and 2600 Hz) on a pulse train at `f0`. */
function syntheticVowel(f0: number, rate: number): Int16Array {
  const pulses = new Float64Array(rate);
  for (let t = 0; t < rate; t += rate / f0) pulses[Math.round(t)] = 1;
  let signal = pulses;
  for (const [hz, bandwidth] of [
    [700, 110],
    [1220, 120],
    [2600, 160],
  ] as const) {
    const r = Math.exp((-Math.PI * bandwidth) / rate);
    const a1 = 2 * r * Math.cos((2 * Math.PI * hz) / rate);
    const a2 = -r * r;
    const out = new Float64Array(rate);
    for (let i = 0; i < rate; i++) out[i] = signal[i]! + a1 * (out[i - 1] ?? 0) + a2 * (out[i - 2] ?? 0);
    signal = out;
  }
  const peak = Math.max(...signal.map(Math.abs));
  return Int16Array.from(signal, (v, i) => Math.round((v / peak) * 16000 * Math.min(1, i / 2000, (rate - i) / 2000)));
}
