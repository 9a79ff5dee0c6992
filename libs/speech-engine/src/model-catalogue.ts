import { LANGUAGES, languageFamily } from './languages';

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

/** English as eSpeak NG and `language_code` name it (`en`, `en-US`, `en-gb-scotland`, …). */
export function isEnglish(languageOrEspeakVoice: string): boolean {
  return /^en(-|$)/i.test(languageOrEspeakVoice);
}

/**
 * The neural model, speaking the languages of the Piper voices installed (`families`, as
 * `languageFamily` names them): every regional variant eSpeak NG lists of each. One model id for
 * them all (the id clients already use), since which Piper voice speaks follows the request's
 * language and voice (catalogue/voice-catalogue.ts).
 */
function neuralModel(families: readonly string[]): Model {
  const spoken = LANGUAGES.filter((l) => families.includes(languageFamily(l.id)));
  return {
    model_id: NEURAL_MODEL_ID,
    name: 'Piper v1 (neural)',
    ...TRAITS,
    description:
      'Neural (VITS) synthesis with the Piper voices installed on this deployment (en_US-joe-medium by default), run on ' +
      "the server with ONNX Runtime. Natural timbre. Speaks the installed voices' languages: a premade or cloned voice " +
      "speaks with an installed speaker, coloured to the voice's pitch and formants. " +
      `${HOSTED_IDS_NOTE} run this model for ${familyNames(families)}.`,
    languages: spoken.map((l) => ({ language_id: l.id, name: l.name })),
  };
}

/** `English`, `English and German`, …: the languages of `families` by name. */
function familyNames(families: readonly string[]): string {
  const names = families.map((f) => LANGUAGES.find((l) => l.id === f)?.name ?? f);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}` : (names[0] ?? '');
}

/**
 * The models this deployment serves: eSpeak NG always, the neural model when a Piper voice is
 * installed. `neural`: the language families of the installed voices (`true`: English, the voice
 * `npm start` fetches).
 */
export function modelCatalogue(options: { neural: boolean | readonly string[] }): readonly Model[] {
  const families = options.neural === true ? ['en'] : options.neural || [];
  if (families.length === 0) return MODELS;
  const espeak: Model = {
    ...MODELS[0]!,
    description: `${MODELS[0]!.description} ${HOSTED_IDS_NOTE} run this model for languages other than ${familyNames(families)}.`,
  };
  return [espeak, neuralModel(families)];
}

/** Whether `model` speaks a language (a tag or an eSpeak NG voice: `en-GB`, `en-gb-scotland`, `de`). */
export function modelSpeaks(model: Model, languageOrEspeakVoice: string): boolean {
  const family = languageFamily(languageOrEspeakVoice);
  return model.languages.some((l) => languageFamily(l.language_id) === family);
}

/** Whether `modelId` is one of the hosted API's ids, whose model follows the request's language. */
export function followsLanguage(modelId: string | undefined): boolean {
  return modelId !== undefined && HOSTED_MODEL_IDS.includes(modelId);
}

/**
 * The model a request's `model_id` names, or null. Absent → the default (eSpeak NG). A hosted id
 * → the neural model where it is served; a request in a language it does not speak then moves to
 * eSpeak NG (`modelForLanguage`).
 */
export function resolveModel(modelId: string | undefined, catalogue: readonly Model[] = MODELS): Model | null {
  if (followsLanguage(modelId)) return hostedModel(catalogue);
  const id = modelId ?? DEFAULT_MODEL_ID;
  return catalogue.find((m) => m.model_id === id) ?? null;
}

/** What a hosted id runs before the request's language is known: the neural model where it is served, else eSpeak NG. */
export function hostedModel(catalogue: readonly Model[]): Model {
  return catalogue.find((m) => m.model_id === NEURAL_MODEL_ID) ?? MODELS[0]!;
}

/** The best model of `catalogue` for a language: the neural model where it speaks it, else eSpeak NG. */
export function bestModel(languageOrEspeakVoice: string, catalogue: readonly Model[]): Model {
  return modelForLanguage(hostedModel(catalogue), languageOrEspeakVoice);
}

/** The model a hosted id runs for a request: `model` when it speaks the language, else eSpeak NG (which speaks every language). */
export function modelForLanguage(model: Model, languageOrEspeakVoice: string): Model {
  return model.model_id === NEURAL_MODEL_ID && !modelSpeaks(model, languageOrEspeakVoice) ? MODELS[0]! : model;
}
