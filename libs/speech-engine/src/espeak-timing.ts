import path from 'node:path';
import type { WordTiming } from './alignment';
import { ENGINE_SAMPLE_RATE, escapeXml, espeakInvocation, runEngineProcess, type EspeakOptions } from './espeak';
import { PYTHON } from './python';
import type { RenderParams } from './settings';

/** One piece's audio with the engine's timing of its words. */
export interface TimedPcm {
  pcm: Int16Array;
  words: WordTiming[];
}

export interface EspeakTimingOptions extends Omit<EspeakOptions, 'binary'> {
  /** The Python 3 interpreter that runs the event reader (default: `PYTHON`). */
  pythonBinary?: string;
}

/** Reads eSpeak NG's synthesis events through its library (see the script's own description). */
const EVENTS_SCRIPT = path.resolve(__dirname, '..', 'python', 'espeak_events.py');

type EngineEvent = ['w', number, number, number] | ['p', number];

interface EventsHeader {
  rate: number;
  samples: number;
  events: EngineEvent[];
}

/**
 * The code point index in `text` of each code point of its SSML input (`espeakInvocation`), for
 * the positions eSpeak reports: the text sits after the `<speak><prosody …>` prefix (which ends at
 * the first `">`: the escaped text has no `"` or `>`), each escaped character as its entity.
 */
function positionsInText(text: string, input: string): number[] {
  const prefix = [...input.slice(0, input.indexOf('">') + 2)].length;
  const map: number[] = new Array<number>(prefix).fill(0);
  [...text].forEach((character, index) => {
    // Code points, as eSpeak counts: an astral character (an emoji) is one position, not two.
    for (let i = 0; i < [...escapeXml(character)].length; i++) map.push(index);
  });
  return map;
}

/**
 * Word spans from the engine's events: a word starts at its WORD event's sample and ends where the
 * next word starts or the next pause begins (eSpeak inserts pause phonemes at punctuation and
 * between clauses), whichever comes first; the last word ends at the next pause or the audio's end.
 * `characters` are the text's code points (what `positions` index).
 */
export function wordsFromEvents(
  header: EventsHeader,
  positions: readonly number[],
  characters: readonly string[],
): WordTiming[] {
  const words: WordTiming[] = [];
  const { events } = header;
  events.forEach((event, i) => {
    if (event[0] !== 'w') return;
    const [, position, length, sample] = event;
    const first = positions[position - 1];
    const last = positions[position + length - 2];
    if (first === undefined || last === undefined || length <= 0) return;
    let endSample = header.samples;
    for (const next of events.slice(i + 1)) {
      const at = next[0] === 'w' ? next[3] : next[1];
      if (at > sample) {
        endSample = at;
        break;
      }
    }
    const previous = words.at(-1);
    // A token spoken as several words ("42": "forty", "two"; an emoji's name) has an event per
    // spoken word, the later ones inside the token or on the whitespace after it: they extend the
    // token's span.
    const onSpace = characters.slice(first, last + 1).every((c) => /^\s$/u.test(c));
    if (previous && (first < previous.end || onSpace))
      previous.endSeconds = Math.max(previous.endSeconds, endSample / header.rate);
    else
      words.push({
        start: first,
        end: last + 1,
        startSeconds: sample / header.rate,
        endSeconds: endSample / header.rate,
      });
  });
  return words;
}

/**
 * Synthesises one piece like `synthesizePcm` (the same library, settings and SSML, so the same
 * audio) and returns the engine's own word timing with it.
 */
export async function synthesizeTimedPcm(
  text: string,
  params: RenderParams,
  options: EspeakTimingOptions = {},
): Promise<TimedPcm> {
  const { args, input } = espeakInvocation(text, params);
  // -S -I: no site packages or environment; the reader needs only the standard library.
  const out = await runEngineProcess(
    options.pythonBinary ?? PYTHON,
    ['-S', '-I', EVENTS_SCRIPT, ...args],
    input,
    options,
  );
  const newline = out.indexOf(10);
  if (newline < 0) throw new Error('the eSpeak NG event reader produced no header');
  const header = JSON.parse(out.subarray(0, newline).toString('utf8')) as EventsHeader;
  if (header.rate !== ENGINE_SAMPLE_RATE)
    throw new Error(`eSpeak NG ran at ${header.rate} Hz, not ${ENGINE_SAMPLE_RATE}`);
  const bytes = Buffer.from(out.subarray(newline + 1, newline + 1 + header.samples * 2));
  const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
  return { pcm, words: wordsFromEvents(header, positionsInText(text, input), [...text]) };
}
