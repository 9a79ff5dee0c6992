import type { WordTiming } from './alignment';

/** 10 ms frames; a frame is speech when its RMS is above 1 % of full scale. */
const FRAME_SECONDS = 0.01;
const SPEECH_RMS = 0.01 * 32767;
/** A clause break (, ; : . ! ?) between two words counts as this many letters of time. */
const BREAK_WEIGHT = 2;

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'’-]*/gu;

/** First and last sample of speech in `pcm` (frames above the threshold), or null for silence. */
function voicedRange(pcm: Int16Array, sampleRate: number): { first: number; last: number } | null {
  const frame = Math.max(1, Math.round(sampleRate * FRAME_SECONDS));
  let first = -1;
  let last = -1;
  for (let start = 0; start < pcm.length; start += frame) {
    const end = Math.min(pcm.length, start + frame);
    let sum = 0;
    for (let i = start; i < end; i++) sum += pcm[i]! * pcm[i]!;
    if (Math.sqrt(sum / (end - start)) > SPEECH_RMS) {
      if (first < 0) first = start;
      last = end;
    }
  }
  return first < 0 ? null : { first, last };
}

/**
 * Word timing for an engine that reports none (the neural model: the Piper voice's graph outputs
 * only audio, its phoneme durations stay inside it). An approximation, anchored in the audio: the
 * span from the first to the last frame of speech in the piece is shared among its words in
 * proportion to their length in letters, a clause break between words counting as two letters
 * (the model pauses there). Silence before and after the speech belongs to no word.
 */
export function approximateWordTimings(text: string, pcm: Int16Array, sampleRate: number): WordTiming[] {
  const range = voicedRange(pcm, sampleRate);
  if (!range) return [];
  const codePointAt = (utf16: number) => [...text.slice(0, utf16)].length;
  const words: { start: number; end: number; weight: number; before: number }[] = [];
  let previousEnd = 0;
  for (const match of text.matchAll(WORD)) {
    const before = words.length > 0 && /[,;:.!?]/.test(text.slice(previousEnd, match.index)) ? BREAK_WEIGHT : 0;
    const start = codePointAt(match.index);
    const length = [...match[0]].length;
    words.push({ start, end: start + length, weight: length, before });
    previousEnd = match.index + match[0].length;
  }
  const total = words.reduce((sum, w) => sum + w.weight + w.before, 0);
  if (total === 0) return [];
  const perUnit = (range.last - range.first) / sampleRate / total;
  let time = range.first / sampleRate;
  return words.map((w) => {
    time += w.before * perUnit;
    const startSeconds = time;
    time += w.weight * perUnit;
    return { start: w.start, end: w.end, startSeconds, endSeconds: time };
  });
}
