import {
  approximateWordTimings,
  createTextAligner,
  pieceCharacterSpans,
  planPieces,
  wordsFromEvents,
  type WordTiming,
} from '../src';

const word = (start: number, end: number, startSeconds: number, endSeconds: number): WordTiming => ({
  start,
  end,
  startSeconds,
  endSeconds,
});

describe('character alignment', () => {
  it('shares a word’s span among its letters and the gap between words among the characters in it', () => {
    // "Hi, you." — "Hi" 0–0.2 s, a pause, "you" 0.5–0.8 s, the audio ends at 1.0 s.
    const spans = pieceCharacterSpans('Hi, you.', [word(0, 2, 0, 0.2), word(4, 7, 0.5, 0.8)], 1);
    expect(spans.map((s) => [+s.start.toFixed(3), +s.end.toFixed(3)])).toEqual([
      [0, 0.1],
      [0.1, 0.2],
      [0.2, 0.35], // ","  the pause is the comma's and the space's
      [0.35, 0.5], // " "
      [0.5, 0.6],
      [0.6, 0.7],
      [0.7, 0.8],
      [0.8, 1], // "."  the final pause
    ]);
  });

  it('covers the text the client sent exactly, piece after piece, with times running on', () => {
    const text = '  One two.\n\nThree  four! ';
    const pieces = planPieces(text);
    expect(pieces).toEqual(['One two.', 'Three  four!']);
    const aligner = createTextAligner(text);
    const first = aligner.piece(pieces[0]!, [word(0, 3, 0.1, 0.4), word(4, 7, 0.4, 0.7)], 0, 1);
    const second = aligner.piece(pieces[1]!, [word(0, 5, 0.1, 0.5), word(7, 11, 0.5, 0.9)], 1, 1.2);
    expect([...first.alignment.characters, ...second.alignment.characters].join('')).toBe(text);
    expect([...first.normalizedAlignment.characters, ...second.normalizedAlignment.characters].join('')).toBe(
      'One two. Three four!',
    );
    const starts = [
      ...first.alignment.character_start_times_seconds,
      ...second.alignment.character_start_times_seconds,
    ];
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    // "T" of "Three" starts 0.1 s into the second piece, which starts at 1 s.
    expect(second.alignment.character_start_times_seconds[second.alignment.characters.indexOf('T')]).toBe(1.1);
    expect(second.alignment.character_end_times_seconds.at(-1)).toBe(2.2);
  });
});

describe('eSpeak NG events to word spans', () => {
  it('ends a word at the next pause or word, maps SSML positions to the text, and folds a token spoken as several words into one', () => {
    const text = [...'Hi 42, ok'];
    // Text "Hi 42, ok" behind a 3-character prefix: positions are 1-based in the SSML input.
    const positions = [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    const header = {
      rate: 1000,
      samples: 1000,
      events: [
        ['w', 4, 2, 0],
        ['w', 7, 2, 200],
        ['w', 8, 2, 400],
        ['p', 500],
        ['p', 600],
        ['w', 11, 2, 700],
      ] as Parameters<typeof wordsFromEvents>[0]['events'],
    };
    expect(wordsFromEvents(header, positions, text)).toEqual([
      word(0, 2, 0, 0.2),
      word(3, 5, 0.2, 0.5),
      word(7, 9, 0.7, 1),
    ]);
  });

  it('folds the words of an emoji’s spoken name, reported on the whitespace after it, into the emoji', () => {
    // "😀 hi": eSpeak says "grinning face" (two events, the second on the space), then "hi".
    const header = {
      rate: 1000,
      samples: 900,
      events: [
        ['w', 1, 1, 0],
        ['w', 2, 1, 300],
        ['w', 3, 2, 600],
      ] as Parameters<typeof wordsFromEvents>[0]['events'],
    };
    expect(wordsFromEvents(header, [0, 1, 2, 3], [...'😀 hi'])).toEqual([word(0, 1, 0, 0.6), word(2, 4, 0.6, 0.9)]);
  });
});

describe('neural word timing (approximation)', () => {
  it('shares the span of speech among the words by length, leaving the silence around it to no word', () => {
    const rate = 1000;
    const pcm = new Int16Array(1000);
    for (let i = 100; i < 900; i++) pcm[i] = i % 2 ? 8000 : -8000;
    const words = approximateWordTimings('ab abcd ab', pcm, rate);
    expect(words.map((w) => [w.start, w.end, +w.startSeconds.toFixed(3), +w.endSeconds.toFixed(3)])).toEqual([
      [0, 2, 0.1, 0.3],
      [3, 7, 0.3, 0.7],
      [8, 10, 0.7, 0.9],
    ]);
  });

  it('takes the longest silences inside the speech as the pauses of the clause breaks, and shares each clause’s speech among its words', () => {
    const rate = 1000;
    const pcm = new Int16Array(1200);
    const speak = (from: number, to: number) => {
      for (let i = from; i < to; i++) pcm[i] = i % 2 ? 8000 : -8000;
    };
    speak(100, 400);
    speak(450, 600); // a 50 ms silence (a closure) inside the first clause: a pause too short to be the comma's
    speak(800, 1100); // after the comma's 200 ms pause
    const words = approximateWordTimings('ab cd efghij, klm.', pcm, rate);
    expect(words.map((w) => [+w.startSeconds.toFixed(3), +w.endSeconds.toFixed(3)])).toEqual([
      [0.1, 0.2],
      [0.2, 0.3],
      [0.3, 0.6],
      [0.8, 1.1],
    ]);
  });
});
