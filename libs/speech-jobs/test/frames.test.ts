import { decodeFrame, encodeFrame, type ChunkFrame } from '../src';

const asBuffers = (fields: (string | Buffer)[]) => fields.map((f) => (Buffer.isBuffer(f) ? f : Buffer.from(f)));

describe('chunk frames', () => {
  it.each<ChunkFrame>([
    { seq: 0, type: 'audio', data: Buffer.from([0xff, 0xfb, 0x00, 0x01]) },
    { seq: 1, type: 'piece', index: 0, text: 'Hello.', durationSeconds: 0.5 },
    {
      seq: 1,
      type: 'piece',
      index: 0,
      text: 'Hi.',
      durationSeconds: 0.5,
      alignment: {
        characters: ['H', 'i', '.'],
        character_start_times_seconds: [0, 0.1, 0.2],
        character_end_times_seconds: [0.1, 0.2, 0.5],
      },
      normalizedAlignment: {
        characters: ['H', 'i', '.'],
        character_start_times_seconds: [0, 0.1, 0.2],
        character_end_times_seconds: [0.1, 0.2, 0.5],
      },
    },
    { seq: 2, type: 'end', characters: 6, durationSeconds: 0.5, pieces: 1, contentType: 'audio/mpeg' },
    { seq: 3, type: 'error', status: 'error', message: 'boom' },
    { seq: 4, type: 'cancelled' },
  ])('round-trips a $type frame', (frame) => {
    expect(decodeFrame(asBuffers(encodeFrame(frame)))).toEqual(frame);
  });

  it('drops a piece frame’s malformed alignment (lists of different lengths, wrong types), keeping the piece', () => {
    const meta = {
      index: 0,
      text: 'Hi',
      durationSeconds: 0.5,
      alignment: {
        characters: ['H', 'i'],
        character_start_times_seconds: [0],
        character_end_times_seconds: [0.1, 0.2],
      },
      normalizedAlignment: 'x',
    };
    expect(decodeFrame(asBuffers(['s', '1', 't', 'p', 'm', JSON.stringify(meta)]))).toEqual({
      seq: 1,
      type: 'piece',
      index: 0,
      text: 'Hi',
      durationSeconds: 0.5,
    });
  });

  it('turns malformed entries into error frames, never exceptions', () => {
    expect(decodeFrame(asBuffers(['s', 'x', 't', 'a']))).toMatchObject({ type: 'error' });
    expect(decodeFrame(asBuffers(['s', '1', 't', '?']))).toMatchObject({ type: 'error' });
    expect(decodeFrame(asBuffers(['s', '1', 't', 'e', 'm', '{not json']))).toMatchObject({
      type: 'end',
      characters: 0,
    });
  });
});
