import { chunkSchedule } from '../src/speech/stream-input/chunk-schedule';
import { FIRST_PIECE_CHARS, latencyPieces, shortenFirstPiece } from '../src/speech/tts/first-piece';

const SENTENCE = 'This first sentence runs on for quite a while, longer than any level keeps whole, before it finally comes to its end, so audio can start sooner.';

describe('optimize_streaming_latency: the first piece', () => {
  it.each([1, 2, 3, 4])('level %i cuts the first piece to its length at a space or clause break, keeping every word', (level) => {
    const pieces = shortenFirstPiece([SENTENCE, 'Next one.'], level);
    expect(pieces[0]!.length).toBeLessThanOrEqual(FIRST_PIECE_CHARS[level]!);
    expect(SENTENCE.startsWith(pieces[0]!)).toBe(true);
    expect(pieces.join(' ')).toBe(`${SENTENCE} Next one.`);
    expect(pieces).toHaveLength(3);
  });

  it('level 0, and a first piece already short enough, leave the pieces as they are', () => {
    expect(shortenFirstPiece([SENTENCE], 0)).toEqual([SENTENCE]);
    expect(shortenFirstPiece(['Short.', SENTENCE], 4)).toEqual(['Short.', SENTENCE]);
    expect(latencyPieces(SENTENCE, 0)).toBeUndefined();
  });
});

describe('chunk_length_schedule', () => {
  it('without one, text goes at sentence ends', () => {
    expect(chunkSchedule(undefined).take('One. Two', false)).toEqual({ ready: ['One.'], rest: 'Two' });
    expect(chunkSchedule({}).take('One. Two', false)).toEqual({ ready: ['One.'], rest: 'Two' });
  });

  it('waits for each entry’s characters (the last repeating), then takes up to the last space', () => {
    const schedule = chunkSchedule({ chunk_length_schedule: [50, 60] });
    const forty = 'word '.repeat(8);
    expect(schedule.take(forty, false)).toEqual({ ready: [], rest: forty });
    const fiftyFive = `${'word '.repeat(10)}unfin`;
    expect(schedule.take(fiftyFive, false)).toEqual({ ready: ['word '.repeat(10).trim()], rest: ' unfin' });
    expect(schedule.take('word '.repeat(11), false).ready).toEqual([]);
    expect(schedule.take('word '.repeat(13), false).ready).toEqual(['word '.repeat(13).trim()]);
    expect(schedule.take('word '.repeat(13), false).ready).toEqual(['word '.repeat(13).trim()]);
  });

  it('a flush takes everything', () => {
    expect(chunkSchedule({ chunk_length_schedule: [500] }).take('A. B', true)).toEqual({ ready: ['A.', 'B'], rest: '' });
  });

  it.each([[{ chunk_length_schedule: [49] }], [{ chunk_length_schedule: [501] }], [{ chunk_length_schedule: [50.5] }], [{ chunk_length_schedule: [] }], [[50]], ['x']])(
    '%j is refused',
    (config) => {
      expect(() => chunkSchedule(config)).toThrow(/generation_config/);
    },
  );
});
