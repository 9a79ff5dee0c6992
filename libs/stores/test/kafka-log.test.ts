import { logLevel } from 'kafkajs';
import { kafkaLogCreator, type KafkaLogSink } from '../src/kafka';

describe("kafkajs's lines go through the app's logger", () => {
  it('keeps the message and fields, names the kafkajs namespace, maps the level, drops its own timestamp', () => {
    const calls: [string, object, string][] = [];
    const sink: KafkaLogSink = {
      error: (f, m) => calls.push(['error', f, m]),
      warn: (f, m) => calls.push(['warn', f, m]),
      info: (f, m) => calls.push(['info', f, m]),
      debug: (f, m) => calls.push(['debug', f, m]),
    };
    const log = kafkaLogCreator(sink)(logLevel.ERROR);
    log({
      namespace: 'Connection',
      level: logLevel.ERROR,
      label: 'ERROR',
      log: { timestamp: 't', logger: 'kafkajs', message: 'not the leader', broker: '127.0.0.1:9192' },
    });
    log({
      namespace: 'Consumer',
      level: logLevel.WARN,
      label: 'WARN',
      log: { timestamp: 't', logger: 'kafkajs', message: 'rebalancing' },
    });
    expect(calls).toEqual([
      ['error', { broker: '127.0.0.1:9192', kafkajs: 'Connection' }, 'not the leader'],
      ['warn', { kafkajs: 'Consumer' }, 'rebalancing'],
    ]);
  });
});
