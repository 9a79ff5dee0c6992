/**
 * Splits text into pieces synthesised one after another: at sentence ends, and long sentences
 * further at clause breaks or spaces, so the first audio is ready after one short piece.
 */
export const MAX_PIECE_CHARS = 250;

/**
 * Longest first piece: audio starts once the first piece is synthesised, so it is a clause or the
 * first few words (about a second of speech; the neural model renders it in about 0.1 s on one
 * core), like the short first entry of the hosted API's `chunk_length_schedule`.
 */
export const FIRST_PIECE_CHARS = 20;

/**
 * Each later piece holds at most this many times the characters of the piece before it (but may
 * always hold two FIRST_PIECE_CHARS, and never more than MAX_PIECE_CHARS). With the engine at a real-time factor
 * up to 1/PIECE_GROWTH, a piece is synthesised before the one before it has finished playing, so the
 * audio never waits. Whole sentences are grouped within that bound; a sentence longer than it is cut
 * at a clause break or a space, as the first one is.
 */
export const PIECE_GROWTH = 4;

const SENTENCE_END = /(?<=[.!?…。！？;；])["'”’)\]]*\s+|(?<=[。！？])/u;

export function splitSentences(text: string, maxChars = MAX_PIECE_CHARS): string[] {
  const pieces: string[] = [];
  for (const sentence of text.split(SENTENCE_END)) {
    const trimmed = sentence.trim();
    if (trimmed) pieces.push(...splitLong(trimmed, maxChars));
  }
  return pieces;
}

/**
 * Pieces for one job: the first sentence's first clause or first words (`FIRST_PIECE_CHARS`), then
 * the rest of the text in pieces that grow by at most `PIECE_GROWTH` each: whole sentences grouped
 * while they fit (each engine run has a fixed cost; short sentences one by one would spend more time
 * starting than speaking), a sentence that does not fit cut at a clause break or a space.
 */
export function planPieces(text: string, maxChars = MAX_PIECE_CHARS): string[] {
  const [first, ...sentences] = splitSentences(text, maxChars);
  if (first === undefined) return [];
  const [head, ...restOfFirst] = shortenFirstPiece([first]);
  const pieces = [head!];
  // At least two first pieces' worth: a first piece of one word ("Hi.") would otherwise cut the next sentence to bits.
  const capAfter = (piece: string) => Math.min(maxChars, Math.max(2 * FIRST_PIECE_CHARS, PIECE_GROWTH * piece.length));
  const add = (sentence: string, groupable: boolean) => {
    const last = pieces.length - 1;
    // Grouped into the last piece (never the first) while that stays within its own bound.
    if (groupable && last >= 1 && pieces[last]!.length + 1 + sentence.length <= capAfter(pieces[last - 1]!)) {
      pieces[last] += ` ${sentence}`;
      return;
    }
    let rest = sentence;
    // A sentence only a few words over its bound stays whole rather than leave a stub of a piece.
    for (
      let cap = capAfter(pieces.at(-1)!);
      rest.length > Math.min(maxChars, cap + FIRST_PIECE_CHARS / 2);
      cap = capAfter(pieces.at(-1)!)
    ) {
      const cut = cutWithin(rest, cap);
      if (cut <= 0 || cut >= rest.length) break;
      pieces.push(rest.slice(0, cut).trim());
      rest = rest.slice(cut).trim();
    }
    if (rest) pieces.push(rest);
  };
  for (const rest of restOfFirst) add(rest, false);
  for (const sentence of sentences) add(sentence, true);
  return pieces;
}

/**
 * Where to cut `text` so the first part holds at most `maxChars`: after a clause break in its last
 * two thirds, else at a space, else at the first space after (never inside a word); 0: nowhere.
 */
function cutWithin(text: string, maxChars: number): number {
  const window = text.slice(0, maxChars + 1);
  const clause = Math.max(
    window.lastIndexOf(', '),
    window.lastIndexOf(': '),
    window.lastIndexOf('; '),
    window.lastIndexOf(' - '),
  );
  if (clause > maxChars / 3) return clause + 1;
  const space = window.lastIndexOf(' ');
  return space > 0 ? space : Math.max(0, text.indexOf(' '));
}

/**
 * The pieces with the first cut to at most `maxChars` at a clause break or a space (never inside a
 * word: a first word longer than that is the whole first piece), the rest of that sentence as the
 * next piece (stream-input segments arrive as whole sentences).
 */
export function shortenFirstPiece(pieces: string[], maxChars = FIRST_PIECE_CHARS): string[] {
  const [first, ...rest] = pieces;
  if (first === undefined || first.length <= maxChars) return pieces;
  const window = first.slice(0, maxChars + 1);
  const clause = Math.max(
    window.lastIndexOf(', '),
    window.lastIndexOf(': '),
    window.lastIndexOf('; '),
    window.lastIndexOf(' - '),
  );
  const space = window.lastIndexOf(' ');
  const cut = clause > maxChars / 3 ? clause + 1 : space > 0 ? space : first.indexOf(' ');
  if (cut <= 0) return pieces;
  return [first.slice(0, cut).trim(), first.slice(cut).trim(), ...rest];
}

function splitLong(sentence: string, maxChars: number): string[] {
  const out: string[] = [];
  let rest = sentence;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars);
    const clause = Math.max(window.lastIndexOf(', '), window.lastIndexOf(': '), window.lastIndexOf(' - '));
    const space = window.lastIndexOf(' ');
    const cut = clause > maxChars / 3 ? clause + 1 : space > maxChars / 3 ? space : maxChars;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/**
 * For streamed input (WebSocket): takes complete sentences off the front of a buffer, leaving
 * the unfinished tail for later text. With `flush`, everything goes.
 */
export function takeSentences(buffer: string, flush: boolean, minChars = 1): { ready: string[]; rest: string } {
  if (flush) return { ready: splitSentences(buffer), rest: '' };
  const re = /[.!?…。！？;；]["'”’)\]]*\s+|[。！？]/gu;
  let lastEnd = -1;
  for (let m = re.exec(buffer); m; m = re.exec(buffer)) lastEnd = m.index + m[0].length;
  if (lastEnd < 0 || buffer.slice(0, lastEnd).trim().length < minChars) {
    // No sentence end yet; still cut a runaway sentence so memory and latency stay bounded.
    if (buffer.length > MAX_PIECE_CHARS * 2) {
      const pieces = splitSentences(buffer);
      const rest = pieces.pop() ?? '';
      return { ready: pieces, rest };
    }
    return { ready: [], rest: buffer };
  }
  return { ready: splitSentences(buffer.slice(0, lastEnd)), rest: buffer.slice(lastEnd) };
}
