import type { WordTiming } from '../alignment';
import { PhonemeError, spokenPhonemes, type SpokenPhonemes } from './phonemes';
import type { PronunciationRule } from './rules';

/**
 * A stretch of a piece as the engine is to say it: `from`/`to` are code point positions in the
 * piece (`to` exclusive). Text the rules left alone is its own text; an alias rule's match says
 * the alias; a phoneme rule's match says its phonemes.
 */
export type SpokenSegment = { from: number; to: number } & (
  { kind: 'text'; text: string } | { kind: 'alias'; text: string } | { kind: 'phonemes'; phonemes: SpokenPhonemes }
);

interface CompiledRule {
  pattern: string[];
  lowered: string;
  caseSensitive: boolean;
  wordBoundaries: boolean;
  say: { kind: 'alias'; text: string } | { kind: 'phonemes'; phonemes: SpokenPhonemes };
}

export interface Pronunciation {
  rules: readonly CompiledRule[];
}

const WORD_CHARACTER = /[\p{L}\p{N}\p{M}_]/u;

/**
 * The rules of a job, ready to match: phonemes converted once. A rule whose phonemes do not convert
 * is left out (the API refuses such rules when they are made, so only a stored rule from an older
 * table could be one); the first rule for a string wins, in the order given.
 */
export function compilePronunciation(rules: readonly PronunciationRule[]): Pronunciation {
  const compiled: CompiledRule[] = [];
  for (const rule of rules) {
    const pattern = [...rule.string_to_replace];
    if (pattern.length === 0) continue;
    let say: CompiledRule['say'];
    if (rule.type === 'alias') say = { kind: 'alias', text: rule.alias };
    else {
      try {
        say = { kind: 'phonemes', phonemes: spokenPhonemes(rule.phoneme, rule.alphabet) };
      } catch (err) {
        if (err instanceof PhonemeError) continue;
        throw err;
      }
    }
    compiled.push({
      pattern,
      lowered: rule.string_to_replace.toLowerCase(),
      caseSensitive: rule.case_sensitive ?? true,
      wordBoundaries: rule.word_boundaries ?? true,
      say,
    });
  }
  return { rules: compiled };
}

function matchesAt(characters: readonly string[], at: number, rule: CompiledRule): boolean {
  const end = at + rule.pattern.length;
  if (end > characters.length) return false;
  if (rule.wordBoundaries) {
    const before = characters[at - 1];
    const after = characters[end];
    if (before !== undefined && WORD_CHARACTER.test(before) && WORD_CHARACTER.test(rule.pattern[0]!)) return false;
    if (after !== undefined && WORD_CHARACTER.test(after) && WORD_CHARACTER.test(rule.pattern.at(-1)!)) return false;
  }
  if (rule.caseSensitive) return rule.pattern.every((c, i) => characters[at + i] === c);
  return characters.slice(at, end).join('').toLowerCase() === rule.lowered;
}

/**
 * The piece as the engine says it: scanned left to right, at each position the first rule that
 * matches there (in the job's order: the first dictionary's rules before the second's) replaces its
 * match; replaced text is not scanned again, so one rule's alias never feeds another.
 */
export function pronouncePiece(piece: string, pronunciation: Pronunciation): SpokenSegment[] {
  const characters = [...piece];
  const segments: SpokenSegment[] = [];
  let plainFrom = 0;
  for (let at = 0; at < characters.length;) {
    const rule = pronunciation.rules.find((r) => matchesAt(characters, at, r));
    if (!rule) {
      at++;
      continue;
    }
    if (at > plainFrom)
      segments.push({ from: plainFrom, to: at, kind: 'text', text: characters.slice(plainFrom, at).join('') });
    const to = at + rule.pattern.length;
    segments.push({ from: at, to, ...rule.say });
    at = plainFrom = to;
  }
  if (plainFrom < characters.length)
    segments.push({ from: plainFrom, to: characters.length, kind: 'text', text: characters.slice(plainFrom).join('') });
  return segments;
}

/** eSpeak NG's input for a piece, with each position's origin in the piece. */
export interface EspeakInput {
  text: string;
  /** For each code point of `text`, the span of the piece it says (`[from, to)`). */
  origin: ReadonlyArray<readonly [number, number]>;
}

/**
 * The segments as eSpeak NG's input: text as it is, phonemes as `[[mnemonics]]` (eSpeak NG's
 * phoneme input, which its SSML mode keeps). Each position remembers the stretch of the piece it
 * says, so word timing maps back onto the text the client sent.
 */
export function espeakInput(segments: readonly SpokenSegment[]): EspeakInput {
  let text = '';
  const origin: Array<readonly [number, number]> = [];
  for (const segment of segments) {
    if (segment.kind === 'text') {
      [...segment.text].forEach((c, i) => {
        text += c;
        origin.push([segment.from + i, segment.from + i + 1]);
      });
      continue;
    }
    // A replaced stretch is one word to the engine; padded with spaces so it never fuses with its neighbours.
    const said = segment.kind === 'alias' ? segment.text : `[[${segment.phonemes.espeak}]]`;
    for (const c of [...` ${said} `]) {
      text += c;
      origin.push([segment.from, segment.to]);
    }
  }
  return { text, origin };
}

/**
 * Word timing over the engine's input mapped back onto the piece: a word spans the piece's
 * characters its input characters came from (a replaced stretch is the original word's span);
 * words that land on the same stretch merge into one, the way `pieceCharacterSpans` wants them.
 */
export function wordsInPiece(words: readonly WordTiming[], origin: EspeakInput['origin']): WordTiming[] {
  const mapped: WordTiming[] = [];
  for (const word of words) {
    const first = origin[word.start];
    const last = origin[word.end - 1];
    if (!first || !last) continue;
    const start = first[0];
    const end = Math.max(last[1], start + 1);
    const previous = mapped.at(-1);
    if (previous && start < previous.end) {
      previous.end = Math.max(previous.end, end);
      previous.endSeconds = Math.max(previous.endSeconds, word.endSeconds);
    } else mapped.push({ start, end, startSeconds: word.startSeconds, endSeconds: word.endSeconds });
  }
  return mapped;
}
