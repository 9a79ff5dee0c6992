import { gatewayConfigShape, loadGatewayConfig } from '../src/config';
import { speechConfig, speechConfigShape } from '../src/speech/speech-config';

/**
 * The speech edge's settings have one owner (speech-config.ts): the gateway's configuration takes
 * them as they are, and a speech edge made outside the gateway (the speech tests) gets the same
 * defaults from the same schema.
 */
const ENV = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  KAFKA_BROKERS: '127.0.0.1:9092',
  INTERNAL_SECRET: 'speech-config-test-secret-0123456789abcdef',
  PUBLIC_URL: 'http://platform.test',
};

describe('the speech edge settings', () => {
  it('are the gateway’s: every one is in its configuration with the same schema', () => {
    for (const [name, schema] of Object.entries(speechConfigShape))
      expect({ name, schema: (gatewayConfigShape as Record<string, unknown>)[name] }).toEqual({ name, schema });
  });

  it('default alike in the gateway and in a speech edge made on its own', () => {
    const gateway = loadGatewayConfig(ENV) as Record<string, unknown>;
    const alone = speechConfig({ REDIS_URL: ENV.REDIS_URL, PUBLIC_URL: ENV.PUBLIC_URL }) as Record<string, unknown>;
    for (const name of Object.keys(speechConfigShape))
      expect({ name, value: alone[name] }).toEqual({ name, value: gateway[name] });
    expect(alone).toMatchObject({
      SPEECH_FRAME_TIMEOUT_MS: 15_000,
      SYNTHESIS_QUEUE: 'synthesis',
      SPEECH_KEY_PREFIX: 'speech',
    });
  });

  it('are checked as the gateway checks its environment', () => {
    expect(() =>
      speechConfig({ REDIS_URL: ENV.REDIS_URL, PUBLIC_URL: ENV.PUBLIC_URL, SPEECH_QUEUE_WAIT_MS: -1 }),
    ).toThrow(/SPEECH_QUEUE_WAIT_MS: malformed/);
  });
});
