import { z } from 'zod';

/** The catalogue file an operator may put in the voices directory beside the Piper voices. */
export const CATALOGUE_FILE = 'voices.json';

/**
 * One voice of the catalogue file: which installed Piper voice and speaker it speaks with, an
 * optional colour, and what `GET /v1/voices` shows of it. An entry with a premade voice's id
 * replaces that premade voice.
 */
const catalogueVoice = z
  .object({
    /** The id clients use; the characters a voice id may have in a path (and a preview's file name). */
    voice_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"'),
    name: z.string().min(1).max(100),
    /** The Piper voice's file name in the directory, without `.onnx`. */
    model: z.string().min(1),
    /** A speaker of a multi-speaker model: its name in `speaker_id_map` or its number. Default 0. */
    speaker: z.union([z.string().min(1), z.number().int().nonnegative()]).optional(),
    /** Pitch (median F0) and formant shift applied to the speaker; absent: the speaker as it is. */
    colour: z
      .object({
        pitch_hz: z.number().min(50).max(400),
        formant_ratio: z.number().min(0.8).max(1.3),
      })
      .strict()
      .optional(),
    description: z.string().max(500).optional(),
    labels: z
      .object({
        gender: z.enum(['male', 'female']),
        accent: z.string().max(50).optional(),
        age: z.string().max(50).optional(),
        use_case: z.string().max(50).optional(),
      })
      .strict(),
    /** The sentence `preview_url` reads; default an English one. */
    preview_text: z.string().min(1).max(500).optional(),
  })
  .strict();

export const catalogueFileSchema = z
  .object({ voices: z.array(catalogueVoice).max(1000) })
  .strict()
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.voices.forEach((v, i) => {
      if (seen.has(v.voice_id))
        ctx.addIssue({ code: 'custom', path: ['voices', i, 'voice_id'], message: `${v.voice_id} is listed twice` });
      seen.add(v.voice_id);
    });
  });

export type CatalogueFile = z.output<typeof catalogueFileSchema>;
export type CatalogueFileVoice = CatalogueFile['voices'][number];
