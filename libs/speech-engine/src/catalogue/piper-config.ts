import { z } from 'zod';

/**
 * The part of a Piper voice's `<name>.onnx.json` the engine reads. Piper writes more (dataset,
 * training settings); only these fields decide how the voice is run and what it speaks.
 */
export const piperConfigSchema = z.object({
  audio: z.object({ sample_rate: z.number().int().positive() }),
  espeak: z.object({ voice: z.string().min(1) }),
  /** `code` as Piper names it (`en_US`, `de_DE`); absent from some older voices (then `espeak.voice` says it). */
  language: z
    .object({ code: z.string().min(1) })
    .partial()
    .optional(),
  inference: z.object({ noise_scale: z.number(), length_scale: z.number(), noise_w: z.number() }),
  phoneme_id_map: z.record(z.array(z.number().int())),
  /** More than 1: the model takes a speaker id (`sid`) and `speaker_id_map` names them. */
  num_speakers: z.number().int().positive().default(1),
  speaker_id_map: z.record(z.number().int().nonnegative()).default({}),
});

export type PiperConfig = z.output<typeof piperConfigSchema>;

/** The language a Piper voice speaks, as a tag: its `language.code`, else its eSpeak NG voice. */
export function piperLanguage(config: PiperConfig): string {
  return config.language?.code ?? config.espeak.voice;
}
