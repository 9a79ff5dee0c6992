import { DEFAULT_VOICE_SETTINGS, renderParams, synthesizePcm, synthesizeTimedPcm } from '../src';

/** The real eSpeak NG: the command line for the audio, its library (through the event reader) for the timing. */
const params = renderParams(
  { voice: 'en-us', variant: 'f2', pitch: 60, pitchRange: 60, speed: 170, amplitude: 100, wordGap: 1 },
  DEFAULT_VOICE_SETTINGS,
);

const spoken = (text: string, words: { start: number; end: number }[]) =>
  words.map((w) => [...text].slice(w.start, w.end).join(''));

describe('eSpeak NG timing', () => {
  it('comes with the very audio the command line makes, sample for sample', async () => {
    const text = 'Hello there, my friend. Tom & Jerry <say> "hi".';
    const [cli, timed] = await Promise.all([synthesizePcm(text, params), synthesizeTimedPcm(text, params)]);
    expect(timed.pcm.length).toBe(cli.length);
    expect(Buffer.from(timed.pcm.buffer).equals(Buffer.from(cli.buffer))).toBe(true);
  });

  it('takes every voice the command line takes: a language named by its code (language_code en-GB, fr), as the command line falls back to', async () => {
    for (const voice of ['en-gb', 'fr']) {
      const other = renderParams(
        { voice, variant: 'f2', pitch: 60, pitchRange: 60, speed: 170, amplitude: 100, wordGap: 1 },
        DEFAULT_VOICE_SETTINGS,
      );
      const [cli, timed] = await Promise.all([synthesizePcm('Hello 0.', other), synthesizeTimedPcm('Hello 0.', other)]);
      expect({
        voice,
        equal: Buffer.from(timed.pcm.buffer).equals(Buffer.from(cli.buffer)),
        words: timed.words.length,
      }).toEqual({ voice, equal: true, words: 2 });
    }
  });

  it('places words on the text the client wrote: escaped SSML characters, an emoji (one code point, its name several words), a number', async () => {
    const text = 'Tom & Jerry <say> 😀 hi, 42 times.';
    const { pcm, words } = await synthesizeTimedPcm(text, params);
    expect(spoken(text, words)).toEqual(['Tom', '&', 'Jerry', 'say', '😀', 'hi', '42', 'times']);
    const seconds = pcm.length / 22050;
    words.forEach((w, i) => {
      expect(w.endSeconds).toBeGreaterThan(w.startSeconds);
      expect(w.startSeconds).toBeGreaterThanOrEqual(i === 0 ? 0 : words[i - 1]!.endSeconds);
      expect(w.endSeconds).toBeLessThanOrEqual(seconds);
    });
    // The comma's pause lies between "hi" and "42".
    expect(words[6]!.startSeconds - words[5]!.endSeconds).toBeGreaterThan(0.05);
  });
});
