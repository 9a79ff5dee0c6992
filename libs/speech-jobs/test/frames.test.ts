import { decodeFrame, encodeFrame, type ChunkFrame } from '../src';

const asBuffers = (fields: (string | Buffer)[]) => fields.map((f) => (Buffer.isBuffer(f) ? f : Buffer.from(f)));

describe('chunk frames', () => {
  it.each<ChunkFrame>([
    { seq: 0, type: 'audio', data: Buffer.from([0xff, 0xfb, 0x00, 0x01]) },
    { seq: 1, type: 'piece', index: 0, text: 'Hello.', durationSeconds: 0.5 },
    { seq: 2, type: 'end', characters: 6, durationSeconds: 0.5, pieces: 1, contentType: 'audio/mpeg' },
    { seq: 3, type: 'error', status: 'error', message: 'boom' },
    { seq: 4, type: 'cancelled' },
  ])('round-trips a $type frame', (frame) => {
    expect(decodeFrame(asBuffers(encodeFrame(frame)))).toEqual(frame);
  });

  it('turns malformed entries into error frames, never exceptions', () => {
    expect(decodeFrame(asBuffers(['s', 'x', 't', 'a']))).toMatchObject({ type: 'error' });
    expect(decodeFrame(asBuffers(['s', '1', 't', '?']))).toMatchObject({ type: 'error' });
    expect(decodeFrame(asBuffers(['s', '1', 't', 'e', 'm', '{not json']))).toMatchObject({ type: 'end', characters: 0 });
  });
});
