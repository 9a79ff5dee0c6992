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
