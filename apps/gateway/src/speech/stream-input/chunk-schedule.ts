import { MAX_PIECE_CHARS, splitSentences, takeSentences } from '@platform/speech-engine';
import { badRequest } from '../speech-errors';

/** The hosted API's bounds of a `chunk_length_schedule` entry, in characters. */
const MIN_CHUNK = 50;
const MAX_CHUNK = 500;

/**
 * When buffered text is generated. Without a schedule, at each sentence end (our default, the
 * hosted API's `auto_mode`); with the first message's `generation_config.chunk_length_schedule`
 * (`[120, 160, 250, 290]` in the hosted API's documentation), generation n starts once the buffer
 * holds entry n's characters (the last entry repeats), and takes everything up to the buffer's
 * last space, so a word is never cut. A flush, or the end of input, takes everything at once.
 */
export interface ChunkSchedule {
  take(buffer: string, flush: boolean): { ready: string[]; rest: string };
}

/** Reads the first message's `generation_config`; a bad one is a 400 the client is told before closing. */
export function chunkSchedule(generationConfig: unknown): ChunkSchedule {
  if (generationConfig === undefined || generationConfig === null) return { take: takeSentences };
  if (typeof generationConfig !== 'object' || Array.isArray(generationConfig))
    throw badRequest('generation_config must be an object');
  const lengths = (generationConfig as Record<string, unknown>).chunk_length_schedule;
  if (lengths === undefined || lengths === null) return { take: takeSentences };
  if (
    !Array.isArray(lengths) ||
    lengths.length === 0 ||
    lengths.length > 50 ||
    !lengths.every((n) => Number.isInteger(n) && n >= MIN_CHUNK && n <= MAX_CHUNK)
  ) {
    throw badRequest(
      `generation_config.chunk_length_schedule must be a list of whole numbers from ${MIN_CHUNK} to ${MAX_CHUNK}`,
    );
  }
  const schedule = lengths as number[];
  let generation = 0;
  return {
    take(buffer, flush) {
      if (flush) {
        generation += 1;
        return takeSentences(buffer, true);
      }
      if ([...buffer.trimEnd()].length < schedule[Math.min(generation, schedule.length - 1)]!)
        return { ready: [], rest: buffer };
      const cut = buffer.search(/\s\S*$/);
      // No space to cut at: wait for one, unless the text runs away (takeSentences bounds it as without a schedule).
      if (cut <= 0)
        return buffer.length > MAX_PIECE_CHARS * 2 ? takeSentences(buffer, false) : { ready: [], rest: buffer };
      generation += 1;
      return { ready: splitSentences(buffer.slice(0, cut)), rest: buffer.slice(cut) };
    },
  };
}
