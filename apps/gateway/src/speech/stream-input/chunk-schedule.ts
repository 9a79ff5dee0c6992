import { generationConfig } from '@platform/contracts';
import { MAX_PIECE_CHARS, splitSentences, takeSentences } from '@platform/speech-engine';
import { readSpeechInput } from '../speech-input';

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

/**
 * Reads the first message's `generation_config` with its contract; a bad one is a 400 the client is told
 * before closing.
 */
export function chunkSchedule(raw: unknown): ChunkSchedule {
  const schedule = readSpeechInput(generationConfig, raw)?.chunk_length_schedule;
  if (!schedule) return { take: takeSentences };
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
