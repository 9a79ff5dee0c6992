import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DEFAULT_VOICE_SETTINGS,
  PIPER_VOICE_FILE,
  isPrecisionVariant,
  loadPiperVoice,
  scanInstalledVoices,
  synthesizePiperPcm,
  type PiperVoice,
} from '../src';

// `npm test` fetches the voice and makes its int8 variant into .stack/voices/piper (scripts/fetch-voices.mjs).
const voices = process.env.PIPER_VOICES_DIR ?? path.resolve(__dirname, '../../../.stack/voices/piper');
const model = path.join(voices, `${PIPER_VOICE_FILE}.onnx`);
const int8 = path.join(voices, `${PIPER_VOICE_FILE}.int8.onnx`);
const SENTENCE = 'The birch canoe slid on the smooth planks.';

/** Seconds of audio of the sentence, spoken without sampling noise. */
async function seconds(voice: PiperVoice): Promise<number> {
  const pcm = await synthesizePiperPcm(voice, SENTENCE, DEFAULT_VOICE_SETTINGS, undefined, true);
  return pcm.length / voice.config.audio.sample_rate;
}

describe('the neural model at a precision', () => {
  let dir: string;
  const opened: PiperVoice[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'piper-precision-'));
    fs.copyFileSync(`${model}.json`, path.join(dir, `${PIPER_VOICE_FILE}.onnx.json`));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  afterAll(() => Promise.all(opened.map((voice) => voice.inference.close())));

  it('int8 runs the variant <voice>.int8.onnx: it speaks where the fp32 file is no model at all', async () => {
    fs.writeFileSync(path.join(dir, `${PIPER_VOICE_FILE}.onnx`), 'not a model');
    fs.copyFileSync(int8, path.join(dir, `${PIPER_VOICE_FILE}.int8.onnx`));
    await expect(loadPiperVoice(dir, { precision: 'fp32' })).rejects.toThrow();
    const voice = await loadPiperVoice(dir, { precision: 'int8' });
    opened.push(voice);
    expect(voice.precision).toBe('int8');
    // About two seconds spoken (the fp32 model says it in 2.3 s): a sentence, not silence or noise.
    expect(await seconds(voice)).toBeGreaterThan(1.5);
    expect(await seconds(voice)).toBeLessThan(3.5);
  }, 60_000);

  it('int8 without the variant falls back to the fp32 model, and says so in its precision', async () => {
    fs.copyFileSync(model, path.join(dir, `${PIPER_VOICE_FILE}.onnx`));
    const voice = await loadPiperVoice(dir, { precision: 'int8' });
    opened.push(voice);
    expect(voice.precision).toBe('fp32');
    expect(await seconds(voice)).toBeGreaterThan(1.5);
  }, 60_000);

  it('the variant is not a voice of its own in the voices directory', () => {
    fs.writeFileSync(path.join(dir, `${PIPER_VOICE_FILE}.onnx`), '');
    fs.writeFileSync(path.join(dir, `${PIPER_VOICE_FILE}.int8.onnx`), '');
    expect(isPrecisionVariant(`${PIPER_VOICE_FILE}.int8.onnx`)).toBe(true);
    expect(isPrecisionVariant(`${PIPER_VOICE_FILE}.onnx`)).toBe(false);
    const { voices: found, skipped } = scanInstalledVoices(dir);
    expect({ found: found.map((v) => v.name), skipped }).toEqual({ found: [PIPER_VOICE_FILE], skipped: [] });
  });
});
