import { z } from 'zod/v4';
import { MODELS, NEURAL_MODEL_ID } from '@platform/speech-engine';

/** The models served here (the engine's catalogue); the hosted API's ids are accepted in requests too. */
export const SERVED_MODEL_IDS: readonly string[] = [...MODELS.map((m) => m.model_id), NEURAL_MODEL_ID];

/** A model of `GET /v1/models` (`Model` of the engine's catalogue). */
export const model = z.looseObject({
  model_id: z.enum(SERVED_MODEL_IDS),
  name: z.string(),
  can_be_finetuned: z.boolean(),
  can_do_text_to_speech: z.boolean(),
  can_do_voice_conversion: z.boolean(),
  can_use_style: z.boolean(),
  can_use_speaker_boost: z.boolean(),
  serves_provided_models: z.null(),
  token_cost_factor: z.number(),
  description: z.string(),
  languages: z.array(z.looseObject({ language_id: z.string(), name: z.string() })),
});
