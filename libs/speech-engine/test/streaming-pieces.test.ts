import {
  DEFAULT_VOICE_SETTINGS,
  FIRST_PIECE_CHARS,
  MAX_PIECE_CHARS,
  PIECE_GROWTH,
  PIPER_VOICE_FILE,
  planPieces,
  renderParams,
  resolveOutputFormat,
  shortenFirstPiece,
  synthesizeToStream,
} from '../src';

/** The neural model's own speaker, so the fake engine's PCM goes out as it is. */
const params = renderParams(
  { voice: 'en-us', variant: 'm3', pitch: 50, pitchRange: 50, speed: 175, amplitude: 100, neural: PIPER_VOICE_FILE },
  DEFAULT_VOICE_SETTINGS,
);
const pcm16k = resolveOutputFormat('pcm_16000')!;

const LONG_FIRST =
  'This first sentence runs on for quite a while before it finally comes to its end, so the first audio can start sooner.';

describe('the piece plan: a short first piece, then pieces that grow by at most PIECE_GROWTH', () => {
  it('cuts a long first sentence at its first words, the rest of it within PIECE_GROWTH times that, every word kept', () => {
    const pieces = planPieces(`${LONG_FIRST} A second one.`);
    expect(pieces[0]!.length).toBeLessThanOrEqual(FIRST_PIECE_CHARS);
    expect(pieces[0]).toBe('This first sentence');
    // The rest of the sentence (98 characters) is more than four times the first piece: cut at its clause break.
    expect(pieces[1]).toBe('runs on for quite a while before it finally comes to its end,');
    expect(pieces[2]).toBe('so the first audio can start sooner. A second one.');
    expect(pieces.join(' ')).toBe(`${LONG_FIRST} A second one.`);
  });

  it('prefers a clause break to a space for the cut', () => {
    expect(planPieces('Well, now, that is a long story to tell you.')[0]).toBe('Well, now,');
  });

  it('keeps a first sentence that is short enough whole', () => {
    expect(planPieces('Hello there. How are you today?')).toEqual(['Hello there.', 'How are you today?']);
  });

  it('keeps every later piece within PIECE_GROWTH times the one before (two first pieces at least), grouping whole sentences and cutting only between words', () => {
    const sentences = [
      'Sentence number one is here.',
      'This one, however, is a good deal longer than any piece before it could hold, so it has to be cut somewhere near its middle.',
      ...Array.from({ length: 10 }, (_, i) => `Sentence number ${i + 2} is here.`),
      `A last sentence that is long again: ${'many words follow here '.repeat(12).trim()}.`,
    ];
    const text = `Hi. ${sentences.join(' ')}`;
    const pieces = planPieces(text);
    expect(pieces[0]).toBe('Hi.');
    const words = new Set(text.split(' '));
    for (const [i, piece] of pieces.entries()) {
      if (i === 0) continue;
      const cap = Math.min(MAX_PIECE_CHARS, Math.max(2 * FIRST_PIECE_CHARS, PIECE_GROWTH * pieces[i - 1]!.length));
      // A sentence a few words over its bound stays whole rather than leave a stub.
      expect(piece.length).toBeLessThanOrEqual(Math.min(MAX_PIECE_CHARS, cap + FIRST_PIECE_CHARS / 2));
      // Cut between words only: a piece starts and ends with a whole word of the text.
      expect(words.has(piece.split(' ')[0]!)).toBe(true);
      expect(words.has(piece.split(' ').at(-1)!)).toBe(true);
    }
    // The long second sentence was cut, and later short sentences were grouped.
    expect(pieces).not.toContain(sentences[1]);
    expect(pieces.some((p) => p.split('. ').length > 2)).toBe(true);
    expect(pieces.join(' ')).toBe(text);
  });

  it('shortenFirstPiece cuts given pieces (a stream-input segment) the same way', () => {
    expect(shortenFirstPiece([LONG_FIRST, 'Next.'])).toEqual([
      'This first sentence',
      LONG_FIRST.slice('This first sentence '.length),
      'Next.',
    ]);
    expect(shortenFirstPiece(['Short.', LONG_FIRST])).toEqual(['Short.', LONG_FIRST]);
  });
});

describe('pipelining in synthesizeToStream', () => {
  it('renders the next piece while the current one is encoded and sent', async () => {
    const events: string[] = [];
    const pending = new Map<string, () => void>();
    const pcmFor = (piece: string) =>
      new Promise<Int16Array>((resolve) => {
        events.push(`render ${piece}`);
        pending.set(piece, () => resolve(new Int16Array(2205).fill(1000)));
      });
    const run = synthesizeToStream(
      { text: 'a b c', pieces: ['a', 'b', 'c'], params, format: pcm16k, pcmFor },
      () => undefined,
      (piece) => events.push(`sent ${piece.text}`),
    );
    const settle = async (piece: string) => {
      while (!pending.has(piece)) await new Promise((resolve) => setImmediate(resolve));
      pending.get(piece)!();
    };
    await settle('a');
    await settle('b');
    await settle('c');
    await run;
    // Piece b was asked for before piece a was sent, and c before b was sent.
    expect(events).toEqual(['render a', 'render b', 'sent a', 'render c', 'sent b', 'sent c']);
  });

  it('a takeover renders the piece lost with the dead worker at once, beside the ones it repeats, each once, with the same audio', async () => {
    const pieces = ['a', 'b', 'c', 'd'];
    const pcmOf = (index: number) => new Int16Array(1000).fill(100 * (index + 1));
    const run = async (prefetch?: number) => {
      const asked: string[] = [];
      const audio: Buffer[] = [];
      await synthesizeToStream(
        {
          text: pieces.join(' '),
          pieces,
          params,
          format: pcm16k,
          ...(prefetch === undefined ? {} : { prefetch }),
          pcmFor: async (piece, index) => {
            asked.push(`${piece}${index}`);
            return pcmOf(index);
          },
        },
        (bytes) => audio.push(bytes),
      );
      return { asked, audio: Buffer.concat(audio) };
    };
    const plain = await run();
    const resumed = await run(2);
    // Piece c (index 2, the first one not sent) is asked for first; every piece once, by its own index.
    expect(resumed.asked).toEqual(['c2', 'a0', 'b1', 'd3']);
    expect(plain.asked).toEqual(['a0', 'b1', 'c2', 'd3']);
    expect(resumed.audio.equals(plain.audio)).toBe(true);
  });

  it('stops within one piece when told, and leaves no rendering unhandled', async () => {
    const rendered: string[] = [];
    let stop = false;
    const progress = await synthesizeToStream(
      {
        text: 'a b c',
        pieces: ['a', 'b', 'c'],
        params,
        format: pcm16k,
        shouldStop: () => stop,
        pcmFor: async (piece) => {
          rendered.push(piece);
          if (piece === 'b') throw new Error('never awaited after the stop');
          return new Int16Array(100);
        },
      },
      () => undefined,
      () => {
        stop = true;
      },
    );
    expect(progress).toMatchObject({ stopped: true, pieces: 1 });
    expect(rendered).toEqual(['a', 'b']);
  });
});
