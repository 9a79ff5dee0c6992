import { ConfigError, env, loadConfig } from '@platform/config';

const shape = {
  PORT: env.port(8080),
  MONGO_URL: env.mongoUrl,
  KAFKA_BROKERS: env.kafkaBrokers,
  INTERNAL_SECRET: env.internalSecret,
};
const valid = {
  MONGO_URL: 'mongodb://127.0.0.1:27027',
  KAFKA_BROKERS: '127.0.0.1:9192, 127.0.0.2:9092',
  INTERNAL_SECRET: 'x'.repeat(32),
};

describe('loadConfig', () => {
  it('parses and applies defaults', () => {
    const config = loadConfig(shape, valid);
    expect(config.PORT).toBe(8080);
    expect(config.KAFKA_BROKERS).toEqual(['127.0.0.1:9192', '127.0.0.2:9092']);
  });

  it('names a missing variable', () => {
    const { MONGO_URL: _omitted, ...rest } = valid;
    expect(() => loadConfig(shape, rest)).toThrow(/MONGO_URL: missing/);
  });

  it('names a malformed variable', () => {
    const attempt = () => loadConfig(shape, { ...valid, MONGO_URL: 'http://nope', PORT: 'eighty' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toMatch(/MONGO_URL: malformed/);
      expect(problems).toMatch(/PORT: malformed/);
    }
  });

  it('rejects a short internal secret and a broker list without ports', () => {
    expect(() => loadConfig(shape, { ...valid, INTERNAL_SECRET: 'short' })).toThrow(/INTERNAL_SECRET/);
    expect(() => loadConfig(shape, { ...valid, KAFKA_BROKERS: 'localhost' })).toThrow(/KAFKA_BROKERS/);
  });

  it('reads METRICS_PORT as a port, unset or empty as no metrics listener', () => {
    const withMetrics = { ...shape, METRICS_PORT: env.metricsPort };
    expect(loadConfig(withMetrics, valid).METRICS_PORT).toBeUndefined();
    expect(loadConfig(withMetrics, { ...valid, METRICS_PORT: '' }).METRICS_PORT).toBeUndefined();
    expect(loadConfig(withMetrics, { ...valid, METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464);
    expect(() => loadConfig(withMetrics, { ...valid, METRICS_PORT: 'nine' })).toThrow(/METRICS_PORT: malformed/);
    expect(() => loadConfig(withMetrics, { ...valid, METRICS_PORT: '70000' })).toThrow(/METRICS_PORT: malformed/);
  });
});
