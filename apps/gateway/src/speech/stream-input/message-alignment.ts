import type { AudioMessage } from '@platform/contracts';
import type { CharacterAlignment } from '@platform/speech-engine';

/**
 * The character timing of one of the hosted API's `stream-input` audio messages (`alignment`,
 * `normalizedAlignment`): three lists of one length, in milliseconds from the start of **that
 * message's** audio, as the official SDKs' types describe it ("relative to the returned chunk from
 * the model, and not the full audio response"). Its shape is the contract's (`audioMessage`).
 */
export type MessageAlignment = NonNullable<AudioMessage['alignment']>;

const WHITESPACE = /^\s$/u;

/**
 * A piece frame's alignment (seconds from the start of its job's audio, as the worker times it)
 * as the message of that piece carries it: `pieceStartSeconds`, where the piece starts in the
 * job's audio, becomes 0. The whitespace around the piece (the worker puts the space between
 * pieces after a piece in `alignment`, before it in `normalizedAlignment`, and none between two
 * segments' jobs) is replaced by one space at the start of every message but the stream's first
 * (`separated`), at 0 ms and lasting 0 ms: the messages' characters concatenated are the text as
 * read, whatever the pieces and segments, which is how clients join them (Pipecat and LiveKit
 * Agents read a leading space as the break between two words). Durations are the rounded end minus
 * the rounded start, so a start plus its duration is the next character's start wherever the two touch.
 */
export function messageAlignment(
  alignment: CharacterAlignment,
  pieceStartSeconds: number,
  separated: boolean,
): MessageAlignment {
  const chars = alignment.characters;
  let from = 0;
  let to = chars.length;
  while (from < to && WHITESPACE.test(chars[from]!)) from++;
  while (to > from && WHITESPACE.test(chars[to - 1]!)) to--;
  const ms = (s: number) => Math.max(0, Math.round((s - pieceStartSeconds) * 1000));
  const starts = alignment.character_start_times_seconds.slice(from, to).map(ms);
  const durations = alignment.character_end_times_seconds
    .slice(from, to)
    .map((end, i) => Math.max(0, ms(end) - starts[i]!));
  const space = separated ? 1 : 0;
  return {
    chars: [...(space ? [' '] : []), ...chars.slice(from, to)],
    charStartTimesMs: [...(space ? [0] : []), ...starts],
    charDurationsMs: [...(space ? [0] : []), ...durations],
  };
}
