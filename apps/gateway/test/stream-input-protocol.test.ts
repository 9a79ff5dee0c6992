import { SpeechError } from '@platform/errors';
import { modelCatalogue, takeSentences } from '@platform/speech-engine';
import { chunkSchedule } from '../src/speech/stream-input/chunk-schedule';
import { readOpenRequest } from '../src/speech/stream-input/open-request';
import { parseClientMessage } from '../src/speech/stream-input/protocol';

describe('stream-input client messages', () => {
  it('reads the stream-input protocol and the hosted API fields', () => {
    expect(parseClientMessage('{"text":" ","voice_settings":{"stability":0.5},"xi_api_key":"k"}')).toEqual({
      text: ' ',
      flush: false,
      voiceSettings: { stability: 0.5 },
      apiKey: 'k',
    });
    expect(parseClientMessage('{"text":"Hi.","flush":true}')).toEqual({ text: 'Hi.', flush: true });
    expect(parseClientMessage('{"text":"Hi.","try_trigger_generation":true}')).toMatchObject({ flush: true });
    expect(parseClientMessage('{"text":"","voice_id":"v1"}')).toEqual({ text: '', flush: false, voiceId: 'v1' });
  });

  it.each(['not json', '[]', 'null', '42', '{"text": 5}', '{}', '{"flush":true}'])('refuses %s', (raw) => {
    expect(parseClientMessage(raw)).toBeNull();
  });
});

describe('stream-input messages read with their contract: the same as the hand-written reader', () => {
  it('counts a field of another type as not sent, and keeps voice_settings and generation_config as sent', () => {
    expect(
      parseClientMessage(
        '{"text":"Hi.","flush":"yes","try_trigger_generation":1,"xi_api_key":5,"voice_id":["v"],"extra":1}',
      ),
    ).toEqual({ text: 'Hi.', flush: false });
    expect(parseClientMessage('{"text":"","voice_settings":"loud","generation_config":[1]}')).toEqual({
      text: '',
      flush: false,
      voiceSettings: 'loud',
      generationConfig: [1],
    });
    expect(parseClientMessage('{"text":" ","voice_settings":null}')).toEqual({
      text: ' ',
      flush: false,
      voiceSettings: null,
    });
  });

  const refusal = (config: unknown) => {
    try {
      chunkSchedule(config);
    } catch (err) {
      if (err instanceof SpeechError) return { http: err.httpStatus, status: err.status, message: err.message };
      throw err;
    }
    throw new Error('accepted');
  };
  const SCHEDULE = 'generation_config.chunk_length_schedule must be a list of whole numbers from 50 to 500';
  it.each<[unknown, string]>([
    [[], 'generation_config must be an object'],
    ['x', 'generation_config must be an object'],
    [5, 'generation_config must be an object'],
    [{ chunk_length_schedule: 'x' }, SCHEDULE],
    [{ chunk_length_schedule: [] }, SCHEDULE],
    [{ chunk_length_schedule: Array.from({ length: 51 }, () => 100) }, SCHEDULE],
    [{ chunk_length_schedule: [100, 49] }, SCHEDULE],
    [{ chunk_length_schedule: [100, '120'] }, SCHEDULE],
  ])('generation_config %j: 400 bad_request %s', (config, message) => {
    expect(refusal(config)).toEqual({ http: 400, status: 'bad_request', message });
  });
  it.each([undefined, null, {}, { chunk_length_schedule: null }, { other: 1 }])(
    'generation_config %j: generation at each sentence end',
    (config) => {
      const text = 'One sentence here. And another one that is not finished';
      expect(chunkSchedule(config).take(text, false)).toEqual(takeSentences(text, false));
    },
  );
});

describe('the upgrade query read with its contract: the same as the hand-written reader', () => {
  const open = (query: string) =>
    readOpenRequest(new URLSearchParams(query), '21m00Tcm4TlvDq8ikWAM', modelCatalogue({ neural: false }), {}, 5000);
  it.each([
    ['', null],
    ['inactivity_timeout=1', 1000],
    ['inactivity_timeout=180', 180_000],
    ['inactivity_timeout=%2060%20', 60_000],
    ['inactivity_timeout=5.0', 5000],
  ])('%s: idle %j ms', (query, idleMs) => {
    expect(open(query).idleMs).toBe(idleMs);
  });
  it.each([
    'inactivity_timeout=',
    'inactivity_timeout=0',
    'inactivity_timeout=181',
    'inactivity_timeout=1.5',
    'inactivity_timeout=x',
  ])('%s: 400 bad_request', (query) => {
    expect(() => open(query)).toThrow(
      expect.objectContaining({
        httpStatus: 400,
        status: 'bad_request',
        message: 'inactivity_timeout must be 1–180 seconds',
      }),
    );
  });
});
