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

const NEURAL_MODEL: Model = {
  model_id: NEURAL_MODEL_ID,
  name: 'Piper English (US) v1 (neural)',
  ...TRAITS,
  description:
    'Neural (VITS) synthesis with the Piper voice en_US-joe-medium, run on the server with ONNX Runtime (WebAssembly). ' +
    'Natural timbre, much slower than eSpeak NG (see docs/benchmarks.md). English only; its voice is "Joe".',
  languages: [
    { language_id: 'en', name: 'English' },
    { language_id: 'en-US', name: 'English (United States)' },
  ],
};

/** The models this deployment serves: eSpeak NG always, the neural model when its voice is present. */
export function modelCatalogue(options: { neural: boolean }): readonly Model[] {
  return options.neural ? [...MODELS, NEURAL_MODEL] : MODELS;
}

/**
 * Model ids of the hosted API, accepted so clients written for it work with their defaults.
 * They all run our one model; `GET /v1/models` lists only real models.
 */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  eleven_multilingual_v2: DEFAULT_MODEL_ID,
  eleven_multilingual_v1: DEFAULT_MODEL_ID,
  eleven_monolingual_v1: DEFAULT_MODEL_ID,
  eleven_flash_v2_5: DEFAULT_MODEL_ID,
  eleven_flash_v2: DEFAULT_MODEL_ID,
  eleven_turbo_v2_5: DEFAULT_MODEL_ID,
  eleven_turbo_v2: DEFAULT_MODEL_ID,
  eleven_v3: DEFAULT_MODEL_ID,
};

/** The model a request's `model_id` names (ours or an alias), or null. Absent → the default. */
export function resolveModel(modelId: string | undefined, catalogue: readonly Model[] = MODELS): Model | null {
  const id = modelId === undefined ? DEFAULT_MODEL_ID : (MODEL_ALIASES[modelId] ?? modelId);
  return catalogue.find((m) => m.model_id === id) ?? null;
}
