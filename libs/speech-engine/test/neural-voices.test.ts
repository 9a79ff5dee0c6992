import {
  bestModel,
  espeakPitchHz,
  followsLanguage,
  isEnglish,
  modelCatalogue,
  modelForLanguage,
  neuralColour,
  resolveModel,
  VARIANTS,
} from '../src';

/**
 * Which model a request runs, and which colour a voice gets on the neural model's one speaker
 * (the colour's signal processing: change-voice.test.ts).
 */
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
});
