import { LANGUAGES } from './languages';

/** The speech API's Model resource, as `GET /v1/models` lists it. */
export interface Model {
  model_id: string;
  name: string;
  can_be_finetuned: boolean;
  can_do_text_to_speech: boolean;
  can_do_voice_conversion: boolean;
  can_use_style: boolean;
  can_use_speaker_boost: boolean;
  serves_provided_models: null;
  token_cost_factor: number;
  description: string;
  languages: { language_id: string; name: string }[];
}

export const DEFAULT_MODEL_ID = 'espeak_ng_v1';
/** The neural model, served when its voice has been fetched (scripts/fetch-voices.mjs). */
export const NEURAL_MODEL_ID = 'piper_en_us_v1';

/** What every model served here can do (both are text-to-speech engines run on the server, at one cost). */
const TRAITS = {
  can_be_finetuned: false,
  can_do_text_to_speech: true,
  can_do_voice_conversion: false,
  can_use_style: true,
  can_use_speaker_boost: true,
  serves_provided_models: null,
  token_cost_factor: 1,
} as const satisfies Partial<Model>;

export const MODELS: readonly Model[] = [
  {
    model_id: DEFAULT_MODEL_ID,
    name: 'eSpeak NG Multilingual v1',
    ...TRAITS,
    description:
      'Formant synthesis with eSpeak NG, run on the server with no network. Fast (first audio in tens of milliseconds), ' +
      'intelligible, robotic timbre. Speaks every language listed here.',
    languages: LANGUAGES.map((l) => ({ language_id: l.id, name: l.name })),
  },
];

/**
 * Model ids of the hosted API, accepted so clients written for it work with their defaults. Each
 * runs the best model served here for the request's language (`modelForLanguage`).
 */
export const HOSTED_MODEL_IDS: readonly string[] = [
  'eleven_multilingual_v2',
  'eleven_multilingual_v1',
  'eleven_monolingual_v1',
  'eleven_flash_v2_5',
  'eleven_flash_v2',
  'eleven_turbo_v2_5',
  'eleven_turbo_v2',
  'eleven_v3',
];

const HOSTED_IDS_NOTE = `The hosted API's model ids (${HOSTED_MODEL_IDS.join(', ')})`;

/** English as eSpeak NG and `language_code` name it (`en`, `en-US`, `en-gb-scotland`, …): what the neural model speaks. */
export function isEnglish(languageOrEspeakVoice: string): boolean {
  return /^en(-|$)/i.test(languageOrEspeakVoice);
}

const ENGLISH = LANGUAGES.filter((l) => isEnglish(l.id));

const NEURAL_MODEL: Model = {
  model_id: NEURAL_MODEL_ID,
  name: 'Piper English (US) v1 (neural)',
  ...TRAITS,
  description:
    'Neural (VITS) synthesis with the Piper voice en_US-joe-medium, run on the server with ONNX Runtime. ' +
    'Natural timbre, American accent, English only. Speaks with every English premade voice and every cloned voice: ' +
    "the model's own speaker is Joe, other voices get their pitch and formants applied to his (Praat's PSOLA). " +
    `${HOSTED_IDS_NOTE} run this model for English.`,
  languages: ENGLISH.map((l) => ({ language_id: l.id, name: l.name })),
};

/** The models this deployment serves: eSpeak NG always, the neural model when its voice is present. */
export function modelCatalogue(options: { neural: boolean }): readonly Model[] {
  if (!options.neural) return MODELS;
  const espeak: Model = {
    ...MODELS[0]!,
    description: `${MODELS[0]!.description} ${HOSTED_IDS_NOTE} run this model for languages other than English.`,
  };
  return [espeak, NEURAL_MODEL];
}

/** Whether `modelId` is one of the hosted API's ids, whose model follows the request's language. */
export function followsLanguage(modelId: string | undefined): boolean {
  return modelId !== undefined && HOSTED_MODEL_IDS.includes(modelId);
}

/**
 * The model a request's `model_id` names, or null. Absent → the default (eSpeak NG). A hosted id
 * → the best model for English in `catalogue` (the neural model where it is served); a request in
 * another language then moves to eSpeak NG (`modelForLanguage`).
 */
export function resolveModel(modelId: string | undefined, catalogue: readonly Model[] = MODELS): Model | null {
  if (followsLanguage(modelId)) return bestModel(true, catalogue);
  const id = modelId ?? DEFAULT_MODEL_ID;
  return catalogue.find((m) => m.model_id === id) ?? null;
}

/** The best model of `catalogue` for a language: the neural model for English where it is served, else eSpeak NG. */
export function bestModel(english: boolean, catalogue: readonly Model[]): Model {
  return (english ? catalogue.find((m) => m.model_id === NEURAL_MODEL_ID) : undefined) ?? MODELS[0]!;
}

/** The model a hosted id runs for a request: `model` when it speaks the language, else eSpeak NG (which speaks every language). */
export function modelForLanguage(model: Model, english: boolean): Model {
  return model.model_id === NEURAL_MODEL_ID && !english ? MODELS[0]! : model;
}
