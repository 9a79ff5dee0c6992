import { z } from 'zod/v4';

const times = z.array(z.number().min(0));

/** The characters of a text and when each is spoken, in seconds from the start of the audio. */
export const characterAlignment = z.looseObject({
  characters: z.array(z.string()),
  character_start_times_seconds: times,
  character_end_times_seconds: times,
});

/** `with-timestamps` (the whole answer) and each line of `stream/with-timestamps`. */
export const audioWithTimestamps = z.looseObject({
  audio_base64: z.string().meta({
    contentEncoding: 'base64',
    description: 'The audio file (or, streamed, the audio since the previous line), base64.',
  }),
  alignment: characterAlignment.nullable().meta({
    description:
      'Over the text as sent; `null` only on a streamed last line that carries the encoder’s remaining audio.',
  }),
  normalized_alignment: characterAlignment
    .nullable()
    .meta({ description: 'Over the text as the engine read it (whitespace runs made one space).' }),
});
