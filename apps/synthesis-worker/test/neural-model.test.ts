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
      `failed to load, serving eSpeak NG only: ${PIPER_VOICE_FILE}.onnx and its .json are not both in ${dir}`,
    );
  });

  it('a corrupt model file: failed with ONNX Runtime’s reason, and neural jobs refused', async () => {
    fs.writeFileSync(path.join(dir, `${PIPER_VOICE_FILE}.onnx`), 'not a model');
    fs.writeFileSync(
      path.join(dir, `${PIPER_VOICE_FILE}.onnx.json`),
      JSON.stringify({ audio: { sample_rate: 22050 } }),
    );
    const model = await preloadNeuralModel(dir, 1, logger);
    expect(model.state).toBe('failed');
    expect(neuralReadiness(model)).toMatch(/^failed to load, serving eSpeak NG only: .+/);
    expect(() => neuralVoice(model)).toThrow('the neural model is not available on this worker (it failed to load)');
  });
});
