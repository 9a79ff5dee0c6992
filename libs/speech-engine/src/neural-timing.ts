import type { WordTiming } from './alignment';

/** 10 ms frames; a frame is speech when its RMS is above 1 % of full scale. */
const FRAME_SECONDS = 0.01;
const SPEECH_RMS = 0.01 * 32767;
/** Silence inside the speech shorter than this is a stop consonant's closure, not a pause. */
const MIN_PAUSE_SECONDS = 0.04;
/** Without a pause to anchor it, a clause break between two words counts as this many letters. */
const BREAK_WEIGHT = 2;

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'’-]*/gu;

interface Span {
  start: number;
  end: number;
}

/** The span from the first to the last frame of speech, and the pauses (silent runs) inside it, in seconds. */
function speechAndPauses(pcm: Int16Array, sampleRate: number): { speech: Span; pauses: Span[] } | null {
  const frame = Math.max(1, Math.round(sampleRate * FRAME_SECONDS));
  const voiced: boolean[] = [];
  for (let start = 0; start < pcm.length; start += frame) {
    const end = Math.min(pcm.length, start + frame);
    let sum = 0;
    for (let i = start; i < end; i++) sum += pcm[i]! * pcm[i]!;
    voiced.push(Math.sqrt(sum / (end - start)) > SPEECH_RMS);
  }
  const first = voiced.indexOf(true);
  if (first < 0) return null;
  const last = voiced.lastIndexOf(true);
  const seconds = (f: number) => Math.min(pcm.length, f * frame) / sampleRate;
  const pauses: Span[] = [];
  for (let f = first; f <= last; f++) {
    if (voiced[f]) continue;
    const start = f;
    while (!voiced[f]) f++;
    if (seconds(f) - seconds(start) >= MIN_PAUSE_SECONDS) pauses.push({ start: seconds(start), end: seconds(f) });
  }
  return { speech: { start: seconds(first), end: seconds(last + 1) }, pauses };
}

interface TextWord {
  start: number;
  end: number;
  letters: number;
  /** A clause break (, ; : . ! ?) stands between this word and the one before. */
  afterBreak: boolean;
}

function textWords(text: string): TextWord[] {
  const codePointAt = (utf16: number) => [...text.slice(0, utf16)].length;
  const words: TextWord[] = [];
  let previousEnd = 0;
  for (const match of text.matchAll(WORD)) {
    const start = codePointAt(match.index);
    const letters = [...match[0]].length;
    words.push({
      start,
      end: start + letters,
      letters,
      afterBreak: words.length > 0 && /[,;:.!?]/.test(text.slice(previousEnd, match.index)),
    });
    previousEnd = match.index + match[0].length;
  }
  return words;
}

/** `words` laid one after another over `span`, each taking time in proportion to its weight. */
function share(words: readonly TextWord[], span: Span, weight: (w: TextWord, i: number) => number): WordTiming[] {
  const total = words.reduce((sum, w, i) => sum + weight(w, i), 0);
  const perUnit = total > 0 ? (span.end - span.start) / total : 0;
  let time = span.start;
  return words.map((w, i) => {
    const startSeconds = time + (weight(w, i) - w.letters) * perUnit;
    time += weight(w, i) * perUnit;
    return { start: w.start, end: w.end, startSeconds, endSeconds: time };
  });
}

/**
 * Word timing for an engine that reports none (the neural model: the Piper voice's graph outputs
 * only audio, its phoneme durations stay inside it). An approximation, anchored in the audio:
 * - the piece's speech runs from its first to its last 10 ms frame above 1 % of full scale;
 * - the model pauses at clause breaks (, ; : . ! ?): with k breaks in the text, the k longest
 *   silent runs inside the speech (40 ms or more) are taken as those pauses, in order;
 * - between two pauses, the words share the speech in proportion to their length in letters.
 * When the audio has fewer pauses than the text has breaks, the whole speech is shared instead,
 * each break counting as two letters. Silence before and after the speech belongs to no word.
 */
export function approximateWordTimings(text: string, pcm: Int16Array, sampleRate: number): WordTiming[] {
  const found = speechAndPauses(pcm, sampleRate);
  const words = textWords(text);
  if (!found || words.length === 0) return [];
  const breaks = words.filter((w) => w.afterBreak).length;
  if (breaks === 0 || found.pauses.length < breaks) {
    return share(words, found.speech, (w, i) => w.letters + (i > 0 && w.afterBreak ? BREAK_WEIGHT : 0));
  }
  const pauses = [...found.pauses]
    .sort((a, b) => b.end - b.start - (a.end - a.start))
    .slice(0, breaks)
    .sort((a, b) => a.start - b.start);
  const timings: WordTiming[] = [];
  let clause: TextWord[] = [];
  let from = found.speech.start;
  const flush = (until: number) => {
    timings.push(...share(clause, { start: from, end: until }, (w) => w.letters));
    clause = [];
  };
  let next = 0;
  for (const word of words) {
    if (word.afterBreak) {
      const pause = pauses[next++]!;
      flush(pause.start);
      from = pause.end;
    }
    clause.push(word);
  }
  flush(found.speech.end);
  return timings;
}
