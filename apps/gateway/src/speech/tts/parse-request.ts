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
import { parseRequestOptions, type RequestOptions } from './request-options';

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
}

const VOICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function checkVoiceId(voiceId: string): string {
  if (!VOICE_ID.test(voiceId))
    throw new SpeechError(404, 'voice_not_found', `voice ${JSON.stringify(voiceId.slice(0, 64))} does not exist`);
  return voiceId;
}

function checkText(text: unknown, maxChars: number): string {
  if (typeof text !== 'string') throw badRequest('text is required and must be a string');
  if (text.trim().length === 0) throw badRequest('text must not be empty');
  // Characters as a person counts them (code points), the unit quotas charge.
  const length = [...text].length;
  if (length > maxChars)
    throw new SpeechError(400, 'text_too_long', `text is ${length} characters; the maximum is ${maxChars}`);
  return text;
}

function checkModel(modelId: unknown, catalogue: readonly Model[]): Model {
  if (modelId !== undefined && modelId !== null && typeof modelId !== 'string')
    throw badRequest('model_id must be a string');
  const model = resolveModel(modelId ?? undefined, catalogue);
  if (!model)
    throw new SpeechError(
      400,
      'model_not_found',
      `model ${JSON.stringify(String(modelId).slice(0, 64))} does not exist; see GET /v1/models`,
    );
  return model;
}

export function checkFormat(format: unknown): OutputFormat {
  if (format !== undefined && format !== null && typeof format !== 'string')
    throw badRequest('output_format must be a string');
  const resolved = resolveOutputFormat(format ?? undefined);
  if (!resolved)
    throw badRequest(
      `output_format ${JSON.stringify(String(format).slice(0, 40))} is not supported; see docs/speech.md`,
    );
  return resolved;
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

export function checkLanguage(code: unknown): Language | null {
  if (code === undefined || code === null) return null;
  if (typeof code !== 'string') throw badRequest('language_code must be a string');
  const language = resolveLanguage(code);
  if (!language)
    throw badRequest(
      `language_code ${JSON.stringify(code.slice(0, 40))} is not a language this model speaks; see GET /v1/models`,
    );
  return language;
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
 * Reads the JSON body (the speech API's request) and the query string (`output_format`, as the hosted API's clients
 * send it; the body wins when both are given).
 */
export function parseTtsRequest(
  body: unknown,
  query: Record<string, unknown>,
  maxChars: number,
  catalogue: readonly Model[],
): TtsRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('request body must be a JSON object');
  const b = body as Record<string, unknown>;
  const queryFormat = typeof query.output_format === 'string' ? query.output_format : undefined;
  const text = checkText(b.text, maxChars);
  const model = checkModel(b.model_id, catalogue);
  const format = checkFormat(b.output_format ?? queryFormat);
  const language = checkLanguage(b.language_code);
  // Validate settings now (values outside 0–1 are a 400 before any voice lookup).
  checkSettings(b.voice_settings, {});
  const options = parseRequestOptions(b, query, maxChars);
  const modelFollowsLanguage = typeof b.model_id === 'string' && followsLanguage(b.model_id);
  return { text, model, modelFollowsLanguage, format, language, rawSettings: b.voice_settings, options };
}
