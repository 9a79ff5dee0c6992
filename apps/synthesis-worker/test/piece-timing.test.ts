import { pieceFrames } from '../src/synthesis/piece-timing';

describe('pieceFrames', () => {
  const first = {
    index: 0,
    text: 'Hi.',
    durationSeconds: 0.5,
    words: [{ start: 0, end: 2, startSeconds: 0.1, endSeconds: 0.3 }],
  };
  const second = {
    index: 1,
    text: 'Yo.',
    durationSeconds: 0.4,
    words: [{ start: 0, end: 2, startSeconds: 0, endSeconds: 0.2 }],
  };

  it('without timestamps: the piece as before, no alignment (and no words on the wire)', () => {
    expect(pieceFrames({ text: 'Hi. Yo.' })(first)).toEqual({
      type: 'piece',
      index: 0,
      text: 'Hi.',
      durationSeconds: 0.5,
    });
  });

  it('with timestamps: each piece aligned against the job text, times running on from the previous pieces', () => {
    const frameOf = pieceFrames({ text: 'Hi. Yo.', timestamps: true });
    const a = frameOf(first);
    const b = frameOf(second);
    expect(a).toMatchObject({ type: 'piece', alignment: { characters: ['H', 'i', '.', ' '] } });
    expect(b).toMatchObject({
      alignment: {
        characters: ['Y', 'o', '.'],
        character_start_times_seconds: [0.5, 0.6, 0.7],
        character_end_times_seconds: [0.6, 0.7, 0.9],
      },
      normalizedAlignment: { characters: [' ', 'Y', 'o', '.'] },
    });
  });
});
