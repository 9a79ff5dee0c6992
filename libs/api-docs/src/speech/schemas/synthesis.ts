import { MODELS } from '@platform/speech-engine';
import type { JsonObject } from '../json-helpers';

export { audioMediaTypes } from '@platform/contracts';

/** The longest `text` by default (`SPEECH_MAX_TEXT_CHARS`, docs/configuration.md). */
export const MAX_TEXT_CHARS = 5000;

/** `GET /v1/models`' answer for the default model, its languages cut to three. */
export const modelsExample = (): JsonObject => ({
  models: MODELS.map((m) => ({
    model_id: m.model_id,
    name: m.name,
    can_be_finetuned: m.can_be_finetuned,
    can_do_text_to_speech: m.can_do_text_to_speech,
    can_do_voice_conversion: m.can_do_voice_conversion,
    can_use_style: m.can_use_style,
    can_use_speaker_boost: m.can_use_speaker_boost,
    serves_provided_models: null,
    token_cost_factor: m.token_cost_factor,
    description: m.description,
    languages: m.languages.slice(0, 3).map((l) => ({ language_id: l.language_id, name: l.name })),
  })),
});

const HI = {
  characters: ['H', 'i', '.'],
  character_start_times_seconds: [0, 0.085, 0.17],
  character_end_times_seconds: [0.085, 0.17, 0.402],
};

/** `with-timestamps` for the text "Hi." (the audio shortened). */
export const audioWithTimestampsExample = (): JsonObject => ({
  audio_base64: '//uQxAAAAAABpBQAACLFJ+LDO7AA…',
  alignment: HI,
  normalized_alignment: HI,
});
