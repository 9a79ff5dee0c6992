import { execFile } from 'node:child_process';

/**
 * Checks of a character alignment against the audio it times (the hosted API's `with-timestamps`
 * shape, and the WebSocket's once its per-message times are placed in the whole audio): silence
 * where it puts the pause of a comma or a full stop, speech inside the words. The audio is decoded
 * by Debian's ffmpeg.
 */
export const RATE = 16_000;

export interface Alignment {
  characters: string[];
  characterStartTimesSeconds: number[];
  characterEndTimesSeconds: number[];
}

/** The audio decoded by ffmpeg to 16-bit mono PCM at RATE (MP3 from its own bytes, PCM as stated). */
export function decode(audio: Buffer, input: string[] = []): Promise<Int16Array> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'ffmpeg',
      ['-v', 'error', '-nostdin', ...input, '-i', 'pipe:0', '-f', 's16le', '-ac', '1', '-ar', String(RATE), 'pipe:1'],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => (err ? reject(err) : resolve(new Int16Array(Buffer.from(stdout).buffer, 0, stdout.length >> 1))),
    );
    child.stdin?.end(audio);
  });
}

/** RMS of each 10 ms window of `pcm` between two times. */
function windows(pcm: Int16Array, from: number, to: number): number[] {
  const size = RATE / 100;
  const out: number[] = [];
  for (
    let start = Math.round(from * RATE);
    start + size <= Math.min(pcm.length, Math.round(to * RATE));
    start += size
  ) {
    let sum = 0;
    for (let i = start; i < start + size; i++) sum += pcm[i]! * pcm[i]!;
    out.push(Math.sqrt(sum / size));
  }
  return out;
}

/** Words (runs of letters) and the characters between consecutive words, with their times. */
function wordsAndGaps(a: Alignment) {
  const words: { text: string; start: number; end: number }[] = [];
  const gaps: { text: string; start: number; end: number }[] = [];
  let i = 0;
  while (i < a.characters.length) {
    const letter = /\p{L}/u.test(a.characters[i]!);
    let j = i;
    while (j < a.characters.length && /\p{L}/u.test(a.characters[j]!) === letter) j++;
    const span = {
      text: a.characters.slice(i, j).join(''),
      start: a.characterStartTimesSeconds[i]!,
      end: a.characterEndTimesSeconds[j - 1]!,
    };
    if (letter) words.push(span);
    else if (words.length > 0 && j < a.characters.length) gaps.push(span);
    i = j;
  }
  return { words, gaps };
}

/** The shape and the timing's consistency: one time pair per character, ordered, inside the audio. */
export function expectWellFormed(
  a: Alignment | undefined,
  text: string,
  durationSeconds: number,
): asserts a is Alignment {
  expect(a).toBeDefined();
  expect(a!.characters.join('')).toBe(text);
  expect(a!.characterStartTimesSeconds).toHaveLength(a!.characters.length);
  expect(a!.characterEndTimesSeconds).toHaveLength(a!.characters.length);
  a!.characters.forEach((_, i) => {
    const start = a!.characterStartTimesSeconds[i]!;
    const end = a!.characterEndTimesSeconds[i]!;
    expect(end).toBeGreaterThanOrEqual(start);
    expect(start).toBeGreaterThanOrEqual(i === 0 ? 0 : a!.characterEndTimesSeconds[i - 1]! - 0.001);
    expect(end).toBeLessThanOrEqual(durationSeconds + 0.05);
  });
}

/**
 * Speech comes out at −14 dBFS RMS (speaker boost, on by default), about 6 500; the engines' pauses
 * are not digital zero but a faint tail (eSpeak NG's around 150, −47 dBFS). Silent: every 10 ms
 * window under 400 (24 dB under the speech level); speech: over 800.
 */
const SILENT_RMS = 400;
const SPEECH_RMS = 800;

/**
 * The alignment matches the audio: at least `minPauses` pauses of punctuation (a gap of 150 ms or
 * more between two words, holding a comma or full stop) are silent in their middle (MP3 shifts
 * audio by a few tens of milliseconds, so 50 ms at each edge are left out), and every word is
 * mostly speech (at least half its windows: stop consonants close the mouth for a moment).
 */
export function expectAlignedWithAudio(a: Alignment, pcm: Int16Array, minPauses: number): void {
  const { words, gaps } = wordsAndGaps(a);
  const pauses = gaps.filter((g) => /[,.!?]/.test(g.text) && g.end - g.start >= 0.15);
  expect(pauses.length).toBeGreaterThanOrEqual(minPauses);
  // Listed with their numbers, so a failure says which pause or word and by how much.
  const loudPauses = pauses
    .map((p) => ({ ...p, loudest: Math.max(...windows(pcm, p.start + 0.05, p.end - 0.05)) }))
    .filter((p) => !(p.loudest < SILENT_RMS));
  expect(loudPauses).toEqual([]);
  const silentWords = words
    .map((w) => {
      const rms = windows(pcm, w.start, w.end);
      return { ...w, speechFraction: rms.filter((r) => r > SPEECH_RMS).length / Math.max(1, rms.length) };
    })
    .filter((w) => !(w.speechFraction >= 0.5));
  expect(silentWords).toEqual([]);
}
