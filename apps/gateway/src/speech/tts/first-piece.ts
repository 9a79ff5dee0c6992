import { MAX_PIECE_CHARS, planPieces, splitSentences } from '@platform/speech-engine';

/**
 * Longest first piece per `optimize_streaming_latency` level. Audio starts once the first piece
 * is synthesised, so a shorter one starts it sooner; 0 keeps the first sentence whole (up to
 * `MAX_PIECE_CHARS`), as the worker plans it.
 */
export const FIRST_PIECE_CHARS = [MAX_PIECE_CHARS, 120, 80, 50, 30] as const;

/**
 * The pieces with the first cut to the level's length, at a clause break or a space (never
 * inside a word), the rest of that sentence as the next piece.
 */
export function shortenFirstPiece(pieces: string[], latency: number): string[] {
  const [first, ...rest] = pieces;
  const max = FIRST_PIECE_CHARS[latency] ?? MAX_PIECE_CHARS;
  if (first === undefined || first.length <= max) return pieces;
  const [head, ...tail] = splitSentences(first, max);
  return [head!, ...(tail.length > 0 ? [tail.join(' ')] : []), ...rest];
}

/** A whole request's pieces for the worker at this latency level; undefined at 0, where the worker's own plan serves. */
export function latencyPieces(text: string, latency: number): string[] | undefined {
  return latency > 0 ? shortenFirstPiece(planPieces(text), latency) : undefined;
}
