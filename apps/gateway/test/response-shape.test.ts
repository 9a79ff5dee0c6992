import { SpeechError } from '@platform/errors';
import { responseShape } from '../src/speech/response-shape';

describe('responseShape', () => {
  it.each([
    ['elevenlabs', 'hosted'],
    ['@elevenlabs/elevenlabs-js', 'hosted'],
    ['ElevenLabs', 'hosted'],
    ['elevenlabs-go', 'hosted'],
    ['other-sdk', 'document'],
    ['elevenlabsfake', 'document'],
    ['', 'document'],
  ])('X-Fern-SDK-Name %j gets the %s shape', (name, shape) => {
    expect(responseShape(undefined, { 'x-fern-sdk-name': name })).toBe(shape);
  });

  it('a client without the header gets the document shape', () => {
    expect(responseShape(undefined, {})).toBe('document');
    expect(responseShape(null, { 'user-agent': 'curl/8' })).toBe('document');
  });

  it('?shape= wins over the header, both ways', () => {
    expect(responseShape('hosted', {})).toBe('hosted');
    expect(responseShape('document', { 'x-fern-sdk-name': 'elevenlabs' })).toBe('document');
  });

  it.each([['xml'], [''], [['hosted', 'hosted']], [{ a: 'b' }]])('?shape=%j is a 400 bad_request', (value) => {
    expect(() => responseShape(value, {})).toThrow(SpeechError);
    expect(() => responseShape(value, {})).toThrow(/shape must be "hosted" or "document"/);
  });
});
