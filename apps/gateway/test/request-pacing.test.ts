import { FIRST_PIECE_CHARS, planPieces, shortenFirstPiece } from '@platform/speech-engine';
import { chunkSchedule } from '../src/speech/stream-input/chunk-schedule';

const SENTENCE =
  'This first sentence runs on for quite a while, longer than any level keeps whole, before it finally comes to its end, so audio can start sooner.';

// Every optimize_streaming_latency level gets the engine's short first piece (a whole request's
// plan, and a stream-input session's first segment): these are its cases as the gateway uses it.
describe('the first piece', () => {
  it('is cut to FIRST_PIECE_CHARS at a space or clause break, keeping every word', () => {
    const pieces = shortenFirstPiece([SENTENCE, 'Next one.']);
    expect(pieces[0]!.length).toBeLessThanOrEqual(FIRST_PIECE_CHARS);
    expect(SENTENCE.startsWith(pieces[0]!)).toBe(true);
    expect(pieces.join(' ')).toBe(`${SENTENCE} Next one.`);
    expect(pieces).toHaveLength(3);
    expect(planPieces(SENTENCE)[0]).toBe(pieces[0]);
  });

  it('a first piece already short enough is left as it is', () => {
    expect(shortenFirstPiece(['Short.', SENTENCE])).toEqual(['Short.', SENTENCE]);
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
    expect(chunkSchedule({ chunk_length_schedule: [500] }).take('A. B', true)).toEqual({
      ready: ['A.', 'B'],
      rest: '',
    });
  });

  it.each([
    [{ chunk_length_schedule: [49] }],
    [{ chunk_length_schedule: [501] }],
    [{ chunk_length_schedule: [50.5] }],
    [{ chunk_length_schedule: [] }],
    [[50]],
    ['x'],
  ])('%j is refused', (config) => {
    expect(() => chunkSchedule(config)).toThrow(/generation_config/);
  });
});
