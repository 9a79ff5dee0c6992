import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@platform/logger';
import { PIPER_VOICE_FILE } from '@platform/speech-engine';
import {
  NeuralModelUnavailable,
  neuralReadiness,
  neuralVoice,
  preloadNeuralModel,
} from '../src/synthesis/neural-model';

const logger = createLogger('worker-test', 'silent');
/** A multi-speaker Piper stand-in (German, three speakers; tests/fixtures/piper-tone/make-tone-voice.py). */
const TONE = path.resolve(__dirname, '../../../tests/fixtures/piper-tone');
const TONE_VOICE = 'de_DE-tone-multi';

describe('the neural model at worker boot', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'piper-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('not configured: eSpeak NG only, said in readiness, and a neural job is refused with the reason', async () => {
    const model = await preloadNeuralModel('', 1, logger);
    expect(model.state).toBe('not_configured');
    expect(neuralReadiness(model)).toBe('not configured (PIPER_VOICES_DIR), serving eSpeak NG only');
    expect(() => neuralVoice(model)).toThrow(NeuralModelUnavailable);
    expect(() => neuralVoice(model)).toThrow(
      'the neural model is not available on this worker (PIPER_VOICES_DIR is not set)',
    );
  });

  it('configured but missing its files: failed, naming what is missing', async () => {
    const model = await preloadNeuralModel(dir, 1, logger);
    expect(neuralReadiness(model)).toBe(
      `failed to load, serving eSpeak NG only: no Piper voice (a <name>.onnx with its <name>.onnx.json) in ${dir}`,
    );
  });

  it('loads every installed voice; a job speaks with the speaker of its voice and language, or is refused', async () => {
    for (const file of [`${TONE_VOICE}.onnx`, `${TONE_VOICE}.onnx.json`])
      fs.copyFileSync(path.join(TONE, file), path.join(dir, file));
    const model = await preloadNeuralModel(dir, 1, logger);
    expect(neuralReadiness(model)).toBe('ok');
    const own = neuralVoice(model, { speaker: { model: TONE_VOICE, id: 2 } }, 'de-DE');
    expect({ rate: own.voice.config.audio.sample_rate, speaker: own.speaker }).toEqual({ rate: 22050, speaker: 2 });
    expect(neuralVoice(model, {}, 'de').speaker).toBe(0);
    expect(() => neuralVoice(model, {}, 'en-us')).toThrow(
      'the neural model is not available on this worker (no loaded Piper voice speaks en-us)',
    );
    if (model.state === 'loaded') await model.voice.inference.close();
  }, 30_000);

  it('a corrupt model file: failed with ONNX Runtime’s reason, and neural jobs refused', async () => {
    fs.writeFileSync(path.join(dir, `${PIPER_VOICE_FILE}.onnx`), 'not a model');
    fs.copyFileSync(path.join(TONE, `${TONE_VOICE}.onnx.json`), path.join(dir, `${PIPER_VOICE_FILE}.onnx.json`));
    const model = await preloadNeuralModel(dir, 1, logger);
    expect(model.state).toBe('failed');
    expect(neuralReadiness(model)).toMatch(/^failed to load, serving eSpeak NG only: .+/);
    expect(() => neuralVoice(model)).toThrow('the neural model is not available on this worker (it failed to load)');
  });
});
