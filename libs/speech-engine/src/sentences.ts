/**
 * Splits text into pieces synthesised one after another: at sentence ends, and long sentences
 * further at clause breaks or spaces, so the first audio is ready after one short piece.
 */
export const MAX_PIECE_CHARS = 250;

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
 * Pieces for one job: the first sentence alone (so audio starts after one sentence), then
 * sentences joined up to `maxChars` (each engine run costs a process start; short sentences
 * one by one would spend more time starting than speaking).
 */
export function planPieces(text: string, maxChars = MAX_PIECE_CHARS): string[] {
  const sentences = splitSentences(text, maxChars);
  const pieces: string[] = [];
  for (const [i, sentence] of sentences.entries()) {
    const last = pieces.length - 1;
    if (i > 1 && last >= 1 && pieces[last]!.length + 1 + sentence.length <= maxChars) pieces[last] += ` ${sentence}`;
    else pieces.push(sentence);
  }
  return pieces;
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
