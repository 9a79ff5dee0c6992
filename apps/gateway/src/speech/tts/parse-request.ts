import {
  languageCodeParam,
  outputFormatParam,
  synthesisVoiceIdParam,
  textToSpeechRequest,
  type PronunciationLocators,
} from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import {
  VoiceSettingsError,
  followsLanguage,
  parseVoiceSettings,
  resolveLanguage,
  resolveModel,
  resolveOutputFormat,
  type Language,
  type Model,
  type OutputFormat,
  type VoiceSettings,
} from '@platform/speech-engine';
import { PLAN_NAMES, planName } from '@platform/speech-store';
import { badRequest } from '../speech-errors';
import { readSpeechInput } from '../speech-input';
import { optionsInput, requestOptionsOf, type RequestOptions } from './request-options';

/** A text-to-speech request after validation (voice not yet resolved). */
export interface TtsRequest {
  text: string;
  model: Model;
  /** `model_id` was a hosted id: the model follows the request's language once the voice is known (`modelForLanguage`). */
  modelFollowsLanguage: boolean;
  format: OutputFormat;
  language: Language | null;
  /** The client's raw settings; merged with the voice's defaults once the voice is known. */
  rawSettings: unknown;
  /** The hosted API's options the SDKs send (`optimize_streaming_latency`, `seed`, …). */
  options: RequestOptions;
  /**
   * `pronunciation_dictionary_locators` (the contract's `pronunciationLocators`): `prepareJob` resolves
   * them to rules before anything is charged, and the job carries the rules. Any path that builds a
   * `TtsRequest` sets it (a WebSocket from its messages' locators); absent or empty: none.
   */
  pronunciationLocators?: PronunciationLocators;
}

/** `{voice_id}` of a synthesis route; an id no voice can have is 404 `voice_not_found` (its contract). */
export const checkVoiceId = (voiceId: string): string => readSpeechInput(synthesisVoiceIdParam, voiceId);

/**
 * The contract's request with the catalogue's models: an unknown `model_id` is 400 `model_not_found`,
 * found in the order the fields are checked. Built once per limit and catalogue (they are the app's).
 */
function requestSchema(maxChars: number, catalogue: readonly Model[]) {
  const base = textToSpeechRequest(maxChars);
  return base.extend({
    model_id: base.shape.model_id.refine((id) => resolveModel(id ?? undefined, catalogue) !== null, {
      error: (issue) => `model ${JSON.stringify(String(issue.input).slice(0, 64))} does not exist; see GET /v1/models`,
      params: { status: 'model_not_found' },
    }),
  });
}
let built: { maxChars: number; catalogue: readonly Model[]; schema: ReturnType<typeof requestSchema> } | undefined;

function schemaFor(maxChars: number, catalogue: readonly Model[]) {
  if (built?.maxChars !== maxChars || built.catalogue !== catalogue)
    built = { maxChars, catalogue, schema: requestSchema(maxChars, catalogue) };
  return built.schema;
}

/** `output_format` (the contract's `outputFormatParam`) as the engine's format; not given is the default. */
export function checkFormat(format: unknown): OutputFormat {
  return resolveOutputFormat(readSpeechInput(outputFormatParam, format) ?? undefined)!;
}

/** Whether `plan` includes `format`: a format's minimum plan or any plan after it in `PLAN_NAMES`. */
export function planAllowsFormat(plan: string | undefined, format: OutputFormat): boolean {
  return !format.minimumPlan || PLAN_NAMES.indexOf(planName(plan)) >= PLAN_NAMES.indexOf(format.minimumPlan);
}

/** Formats the hosted API keeps for paid tiers are refused to cheaper plans, as it refuses them: 403 `subscription_required`. */
export function checkFormatPlan(format: OutputFormat, plan: string | undefined): void {
  if (planAllowsFormat(plan, format)) return;
  throw new SpeechError(
    403,
    'subscription_required',
    `output_format ${format.id} needs the ${format.minimumPlan} plan or above; this account is on the ${planName(plan)} plan`,
  );
}

/** `language_code` (the contract's `languageCodeParam`); null when not given. */
export function checkLanguage(code: unknown): Language | null {
  const checked = readSpeechInput(languageCodeParam, code);
  return checked == null ? null : resolveLanguage(checked);
}

export function checkSettings(raw: unknown, defaults: Partial<VoiceSettings>): VoiceSettings {
  try {
    return parseVoiceSettings(raw, defaults);
  } catch (err) {
    if (err instanceof VoiceSettingsError) throw badRequest(err.message);
    throw err;
  }
}

/**
 * Reads the JSON body (the contract's `textToSpeechRequest`) and the query string (`output_format` and
 * the options, as the hosted API's clients send them; the body wins when both are given).
 */
export function parseTtsRequest(
  body: unknown,
  query: Record<string, unknown>,
  maxChars: number,
  catalogue: readonly Model[],
): TtsRequest {
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  const b = isObject ? (body as Record<string, unknown>) : {};
  // A repeated `output_format` in the query string is not one format: the body's or the default applies.
  const queryFormat = typeof query.output_format === 'string' ? query.output_format : undefined;
  const input = isObject ? { ...b, output_format: b.output_format ?? queryFormat, ...optionsInput(b, query) } : body;
  const request = readSpeechInput(schemaFor(maxChars, catalogue), input);
  const model = resolveModel(request.model_id ?? undefined, catalogue)!;
  const format = resolveOutputFormat(request.output_format ?? undefined)!;
  const language = request.language_code == null ? null : resolveLanguage(request.language_code);
  return {
    text: request.text,
    model,
    modelFollowsLanguage: typeof request.model_id === 'string' && followsLanguage(request.model_id),
    format,
    language,
    rawSettings: b.voice_settings,
    options: requestOptionsOf(request),
    ...(request.pronunciation_dictionary_locators?.length
      ? { pronunciationLocators: request.pronunciation_dictionary_locators }
      : {}),
  };
}
