/**
 * Character timing of synthesised speech, in the hosted speech API's shape (`alignment` and
 * `normalized_alignment` of `POST /v1/text-to-speech/{voice_id}/with-timestamps`): three lists of
 * one length, a character and when it starts and ends, in seconds from the start of the audio.
 */
export interface CharacterAlignment {
  characters: string[];
  character_start_times_seconds: number[];
  character_end_times_seconds: number[];
}

/**
 * A word as the engine spoke it: code point positions in the piece's text (`end` exclusive) and
 * its span in seconds from the start of the piece's audio.
 */
export interface WordTiming {
  start: number;
  end: number;
  startSeconds: number;
  endSeconds: number;
}

interface Span {
  start: number;
  end: number;
}

export function emptyAlignment(): CharacterAlignment {
  return { characters: [], character_start_times_seconds: [], character_end_times_seconds: [] };
}

/** Milliseconds are the precision that matters to a player; fewer digits keep the JSON small. */
const seconds = (s: number) => Math.round(s * 1000) / 1000;

function push(into: CharacterAlignment, character: string, span: Span): void {
  into.characters.push(character);
  into.character_start_times_seconds.push(seconds(span.start));
  into.character_end_times_seconds.push(seconds(span.end));
}

/** `count` equal consecutive parts of `span`. */
function share(span: Span, count: number): Span[] {
  const step = (span.end - span.start) / count;
  return Array.from({ length: count }, (_, i) => ({ start: span.start + i * step, end: span.start + (i + 1) * step }));
}

/**
 * Each code point of a piece's text with its span (seconds from the piece's start). The rule:
 * the characters of a word share the word's span equally (the engine times words, not letters);
 * the characters between two words (spaces, punctuation) share the time between the end of the
 * one and the start of the next equally, so a comma or full stop carries the pause after it;
 * characters before the first word share the time from 0 to it, those after the last word the
 * time from its end to the end of the piece's audio. Words are taken in order and must not
 * overlap (a later word overlapping an earlier one is dropped).
 */
export function pieceCharacterSpans(text: string, words: readonly WordTiming[], durationSeconds: number): Span[] {
  const length = [...text].length;
  const spans: Span[] = new Array<Span>(length);
  let cursor = 0;
  let time = 0;
  const fillGap = (until: number, untilTime: number) => {
    if (until > cursor)
      share({ start: time, end: Math.max(time, untilTime) }, until - cursor).forEach((s, i) => (spans[cursor + i] = s));
  };
  for (const word of words) {
    if (word.start < cursor || word.end <= word.start || word.end > length) continue;
    const start = Math.max(time, word.startSeconds);
    fillGap(word.start, start);
    const end = Math.max(start, Math.min(word.endSeconds, durationSeconds));
    share({ start, end }, word.end - word.start).forEach((s, i) => (spans[word.start + i] = s));
    cursor = word.end;
    time = end;
  }
  fillGap(length, durationSeconds);
  return spans;
}

const WHITESPACE = /^\s$/u;

/**
 * Builds a job's alignments piece by piece, against the text the client sent. The pieces are that
 * text split at sentences and trimmed (`planPieces`), so their characters appear in it in order;
 * each piece's alignment covers its stretch of the original text, including the whitespace after
 * it, so the pieces' `alignment.characters` joined are
 * exactly the text. `normalized_alignment` is over the text as the engine read it: each piece with
 * its whitespace runs made one space, pieces joined by one space (no leading or trailing space).
 * Whitespace the engine never saw (leading, trailing, extra) is placed with zero length where it
 * sits. Times are seconds from the start of the whole audio: `offsetSeconds` is where the piece
 * starts in it.
 */
export function createTextAligner(text: string) {
  const original = [...text];
  let cursor = 0;
  let pieceCount = 0;
  return {
    piece(
      pieceText: string,
      words: readonly WordTiming[],
      offsetSeconds: number,
      durationSeconds: number,
    ): { alignment: CharacterAlignment; normalizedAlignment: CharacterAlignment } {
      const spoken = [...pieceText];
      const spans = pieceCharacterSpans(pieceText, words, durationSeconds).map((s) => ({
        start: offsetSeconds + s.start,
        end: offsetSeconds + s.end,
      }));
      const pieceStart = { start: offsetSeconds, end: offsetSeconds };
      const pieceEnd = { start: offsetSeconds + durationSeconds, end: offsetSeconds + durationSeconds };

      const normalizedAlignment = emptyAlignment();
      if (pieceCount > 0) push(normalizedAlignment, ' ', pieceStart);
      for (let j = 0; j < spoken.length; j++) {
        const isSpace = WHITESPACE.test(spoken[j]!);
        if (!isSpace) push(normalizedAlignment, spoken[j]!, spans[j]!);
        else if (j > 0 && !WHITESPACE.test(spoken[j - 1]!)) {
          let k = j;
          while (k + 1 < spoken.length && WHITESPACE.test(spoken[k + 1]!)) k++;
          if (k + 1 < spoken.length) push(normalizedAlignment, ' ', { start: spans[j]!.start, end: spans[k]!.end });
        }
      }

      const alignment = emptyAlignment();
      let j = 0;
      let lastSpan = pieceStart;
      while (cursor < original.length) {
        const character = original[cursor]!;
        const isSpace = WHITESPACE.test(character);
        if (j >= spoken.length) {
          // The piece is placed: the whitespace after it ends it (after the last piece that is all
          // that is left, as the pieces hold every other character).
          if (!isSpace) break;
          push(alignment, character, pieceEnd);
        } else if (isSpace) {
          if (WHITESPACE.test(spoken[j]!)) {
            lastSpan = spans[j]!;
            j++;
            push(alignment, character, lastSpan);
          } else push(alignment, character, { start: lastSpan.end, end: lastSpan.end });
        } else {
          while (j < spoken.length && WHITESPACE.test(spoken[j]!)) j++;
          lastSpan = spans[j] ?? pieceEnd;
          j++;
          push(alignment, character, lastSpan);
        }
        cursor++;
      }
      pieceCount++;
      return { alignment, normalizedAlignment };
    },
  };
}

/** Appends `more` to `into` (a job's alignment from its pieces'). */
export function appendAlignment(into: CharacterAlignment, more: CharacterAlignment): void {
  into.characters.push(...more.characters);
  into.character_start_times_seconds.push(...more.character_start_times_seconds);
  into.character_end_times_seconds.push(...more.character_end_times_seconds);
}
