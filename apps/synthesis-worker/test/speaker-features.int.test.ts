import path from 'node:path';
import { createLogger } from '@platform/logger';
import { preloadNeuralModel } from '../src/synthesis/neural-model';
import { measureSpeakers } from '../src/voice-analysis/speaker-features';

/** A multi-speaker Piper stand-in: a sine of 150 Hz + 100 Hz per speaker (tests/fixtures/piper-tone). */
const TONE = path.resolve(__dirname, '../../../tests/fixtures/piper-tone');
const logger = createLogger('speaker-features-test', 'silent');

describe('the installed speakers, measured at boot for cloning', () => {
  it('measures every speaker of every loaded voice as the cloning analysis measures samples', async () => {
    const model = await preloadNeuralModel(TONE, 1, logger);
    try {
      const speakers = await measureSpeakers(model, logger);
      expect(speakers.map((s) => [s.model, s.id, s.language])).toEqual([
        ['de_DE-tone-multi', 0, 'de'],
        ['de_DE-tone-multi', 1, 'de'],
        ['de_DE-tone-multi', 2, 'de'],
      ]);
      expect(speakers.map((s) => Math.round(s.features.f0MedianHz / 10) * 10)).toEqual([150, 250, 350]);
    } finally {
      if (model.state === 'loaded') await model.voice.inference.close();
    }
  }, 30_000);

  it('measures nothing without the neural model (a clone then speaks as before)', async () => {
    expect(await measureSpeakers(await preloadNeuralModel('', 1, logger), logger)).toEqual([]);
  });
});
