import path from 'node:path';
import { Redis } from 'ioredis';
import { createLogger } from '@platform/logger';
import { stackEnv, uniqueName } from '@platform/testing';
import type { MeasuredSpeaker } from '@platform/voice-analysis';
import { preloadNeuralModel, type NeuralModel } from '../src/synthesis/neural-model';
import { measureSpeakers, redisSpeakerCache } from '../src/voice-analysis/speaker-features';

/** A multi-speaker Piper stand-in: a sine of 150 Hz + 100 Hz per speaker (tests/fixtures/piper-tone). */
const TONE = path.resolve(__dirname, '../../../tests/fixtures/piper-tone');
const logger = createLogger('speaker-features-test', 'silent');

/** The model's inferences from now on, counted. */
function countInferences(model: NeuralModel): () => number {
  if (model.state !== 'loaded') throw new Error('model not loaded');
  let count = 0;
  for (const voice of model.voices.values()) {
    const run = voice.inference.run.bind(voice.inference);
    voice.inference.run = (...args) => {
      count++;
      return run(...args);
    };
  }
  return () => count;
}

describe('the installed speakers, measured at boot for cloning', () => {
  let model: NeuralModel;
  let redis: Redis;
  beforeAll(async () => {
    model = await preloadNeuralModel(TONE, 1, logger);
    redis = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    if (model.state === 'loaded') await model.voice.inference.close();
    redis.disconnect();
  });

  it('measures every speaker of every loaded voice as the cloning analysis measures samples', async () => {
    const speakers = await measureSpeakers(model, logger);
    expect(speakers.map((s) => [s.model, s.id, s.language])).toEqual([
      ['de_DE-tone-multi', 0, 'de'],
      ['de_DE-tone-multi', 1, 'de'],
      ['de_DE-tone-multi', 2, 'de'],
    ]);
    expect(speakers.map((s) => Math.round(s.features.f0MedianHz / 10) * 10)).toEqual([150, 250, 350]);
  }, 30_000);

  it('keeps what it measured in Redis by the voice file: the next boot (any worker sharing it) measures nothing', async () => {
    const prefix = `${uniqueName('speakers')}:`;
    const cache = redisSpeakerCache(redis, prefix, logger);
    const inferences = countInferences(model);
    const first = await measureSpeakers(model, logger, { cache });
    expect(inferences()).toBe(3);
    const keys = await redis.keys(`${prefix}speaker-features:*`);
    expect(keys).toHaveLength(1);
    expect(JSON.parse((await redis.get(keys[0]!))!) as MeasuredSpeaker[]).toEqual(first);
    expect(await redis.ttl(keys[0]!)).toBeGreaterThan(0);

    const again = await measureSpeakers(model, logger, { cache });
    expect(again).toEqual(first);
    expect(inferences()).toBe(3);
  }, 30_000);

  it('measures again when the store cannot be read (a miss, not a failure)', async () => {
    const broken = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    try {
      const speakers = await measureSpeakers(model, logger, { cache: redisSpeakerCache(broken, 'x:', logger) });
      expect(speakers).toHaveLength(3);
    } finally {
      broken.disconnect();
    }
  }, 30_000);

  it('measures nothing without the neural model (a clone then speaks as before)', async () => {
    expect(await measureSpeakers(await preloadNeuralModel('', 1, logger), logger)).toEqual([]);
  });
});
