import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@platform/logger';
import { DEFAULT_VOICE_SETTINGS, PIPER_VOICE_FILE, synthesizePiperPcm } from '@platform/speech-engine';
import { neuralReadiness, neuralVoice, preloadNeuralModel, type NeuralModel } from '../src/synthesis/neural-model';

// `npm test` fetches the voice and makes its int8 variant into .stack/voices/piper (scripts/fetch-voices.mjs).
const voices = process.env.PIPER_VOICES_DIR ?? path.resolve(__dirname, '../../../.stack/voices/piper');
const model = path.join(voices, `${PIPER_VOICE_FILE}.onnx`);

/** A logger whose lines the test reads. */
function recordingLogger() {
  const lines: { level: number; msg: string; voice?: string; precision?: string }[] = [];
  const logger = createLogger('worker-test', 'info', { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** Seconds of audio the loaded model speaks for a sentence (noiseless). */
async function spoken(loaded: NeuralModel): Promise<number> {
  const { voice } = neuralVoice(loaded);
  const pcm = await synthesizePiperPcm(
    voice,
    'The birch canoe slid on the smooth planks.',
    DEFAULT_VOICE_SETTINGS,
    undefined,
    true,
  );
  return pcm.length / voice.config.audio.sample_rate;
}

describe('the worker’s neural precision (NEURAL_PRECISION)', () => {
  let dir: string;
  const loaded: NeuralModel[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'piper-precision-'));
    fs.copyFileSync(`${model}.json`, path.join(dir, `${PIPER_VOICE_FILE}.onnx.json`));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  afterAll(() => Promise.all(loaded.map((m) => (m.state === 'loaded' ? m.voice.inference.close() : undefined))));

  it('int8: the worker infers with <voice>.int8.onnx (its fp32 file here is no model) and speaks the sentence', async () => {
    fs.writeFileSync(path.join(dir, `${PIPER_VOICE_FILE}.onnx`), 'not a model');
    fs.copyFileSync(
      path.join(voices, `${PIPER_VOICE_FILE}.int8.onnx`),
      path.join(dir, `${PIPER_VOICE_FILE}.int8.onnx`),
    );
    const { logger, lines } = recordingLogger();
    const model = await preloadNeuralModel(dir, 1, logger, undefined, 'int8');
    loaded.push(model);
    expect(neuralReadiness(model)).toBe('ok');
    expect(neuralVoice(model).voice.precision).toBe('int8');
    expect(lines.find((l) => l.msg === 'neural model loaded')).toMatchObject({ precision: 'int8' });
    const seconds = await spoken(model);
    expect(seconds).toBeGreaterThan(1.5);
    expect(seconds).toBeLessThan(3.5);
  }, 60_000);

  it('int8 without the variant: the worker serves fp32 and warns, naming the missing file', async () => {
    fs.copyFileSync(model, path.join(dir, `${PIPER_VOICE_FILE}.onnx`));
    const { logger, lines } = recordingLogger();
    const model8 = await preloadNeuralModel(dir, 1, logger, undefined, 'int8');
    loaded.push(model8);
    expect(neuralReadiness(model8)).toBe('ok');
    expect(neuralVoice(model8).voice.precision).toBe('fp32');
    expect(lines.filter((l) => l.level === 40)).toEqual([
      expect.objectContaining({
        msg: `no ${PIPER_VOICE_FILE}.int8.onnx: this voice serves fp32`,
        voice: PIPER_VOICE_FILE,
        precision: 'int8',
      }),
    ]);
    expect(await spoken(model8)).toBeGreaterThan(1.5);
  }, 60_000);
});
