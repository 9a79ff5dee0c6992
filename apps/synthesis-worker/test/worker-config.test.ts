import { DEFAULT_KEY_PREFIX, SYNTHESIS_QUEUE } from '@platform/speech-jobs';
import { loadWorkerConfig } from '../src/config';

/** The queue and the job keys the worker meets the gateway at: by default libs/speech-jobs' names, as the gateway's. */
describe('the worker configuration', () => {
  it('defaults its queue and key prefix to the names libs/speech-jobs owns', () => {
    const config = loadWorkerConfig({ REDIS_URL: 'redis://127.0.0.1:6379', MONGO_URL: 'mongodb://127.0.0.1:27017' });
    expect(config).toMatchObject({ SYNTHESIS_QUEUE, SPEECH_KEY_PREFIX: DEFAULT_KEY_PREFIX });
    expect(config).toMatchObject({ SYNTHESIS_QUEUE: 'synthesis', SPEECH_KEY_PREFIX: 'speech' });
  });
});

describe('the neural model’s precision (NEURAL_PRECISION)', () => {
  const required = { REDIS_URL: 'redis://127.0.0.1:6379', MONGO_URL: 'mongodb://127.0.0.1:27017' };

  it('is fp32 unless set, and int8 when set so', () => {
    expect(loadWorkerConfig(required).NEURAL_PRECISION).toBe('fp32');
    expect(loadWorkerConfig({ ...required, NEURAL_PRECISION: 'int8' }).NEURAL_PRECISION).toBe('int8');
  });

  it('refuses a precision there is no model for, naming the setting', () => {
    expect(() => loadWorkerConfig({ ...required, NEURAL_PRECISION: 'fp16' })).toThrow(/NEURAL_PRECISION: malformed/);
  });
});
