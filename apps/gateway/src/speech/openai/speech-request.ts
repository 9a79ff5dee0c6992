import {
  OPENAI_RESPONSE_FORMATS,
  OPENAI_SPEECH_MODELS,
  OPENAI_VOICES,
  openAiSpeechRequest,
  type OpenAiSpeechRequest,
} from '@platform/contracts';
import {
  DEFAULT_MODEL_ID,
  SPEED_RANGE,
  followsLanguage,
  hostedModel,
  resolveModel,
  resolveOutputFormat,
  type Model,
} from '@platform/speech-engine';
import type { TtsRequest } from '../tts/parse-request';
import { checkVoiceId } from '../tts/parse-request';
import { OpenAiRequestError, readOpenAiInput } from './openai-errors';

/** `POST /v1/audio/speech` read and mapped onto the speech API's request (docs/speech.md, "OpenAI speech API"). */
export interface OpenAiSpeech {
  voiceId: string;
  request: TtsRequest;
  streamFormat: OpenAiSpeechRequest['stream_format'];
}

const has = <T extends object>(record: T, key: string): key is Extract<keyof T, string> =>
  Object.prototype.hasOwnProperty.call(record, key);

/** The model an OpenAI `model` runs, and whether it follows the request's language (as the hosted API's ids do). */
export function modelOf(name: string, catalogue: readonly Model[]): { model: Model; followsLanguage: boolean } {
  if (has(OPENAI_SPEECH_MODELS, name)) {
    return OPENAI_SPEECH_MODELS[name] === 'fastest'
      ? { model: resolveModel(DEFAULT_MODEL_ID, catalogue)!, followsLanguage: false }
      : { model: hostedModel(catalogue), followsLanguage: true };
  }
  const model = resolveModel(name, catalogue);
  if (!model)
    throw new OpenAiRequestError(
      'model_not_found',
      'model',
      `model ${JSON.stringify(name.slice(0, 64))} does not exist; use tts-1, tts-1-hd, gpt-4o-mini-tts or a model of GET /v1/models`,
    );
  return { model, followsLanguage: followsLanguage(name) };
}

/** OpenAI's voice names are premade voices here; anything else is taken as a voice id (404 when no voice has it). */
export function voiceIdOf(voice: string): string {
  return has(OPENAI_VOICES, voice) ? OPENAI_VOICES[voice] : checkVoiceId(voice);
}

/** OpenAI's speed range (0.25–4) clamped to the engine's `voice_settings.speed` range. */
export function engineSpeed(speed: number): number {
  return Math.min(SPEED_RANGE.max, Math.max(SPEED_RANGE.min, speed));
}

export function readOpenAiSpeech(body: unknown, maxChars: number, catalogue: readonly Model[]): OpenAiSpeech {
  const checked = readOpenAiInput(openAiSpeechRequest(maxChars), body);
  const formatId = OPENAI_RESPONSE_FORMATS[checked.response_format];
  if (formatId === null)
    throw new OpenAiRequestError(
      'unsupported_response_format',
      'response_format',
      `response_format ${checked.response_format} is not supported here; use mp3, opus, wav or pcm`,
    );
  const { model, followsLanguage: follows } = modelOf(checked.model, catalogue);
  const voiceId = voiceIdOf(checked.voice);
  return {
    voiceId,
    streamFormat: checked.stream_format,
    request: {
      text: checked.input,
      model,
      modelFollowsLanguage: follows,
      format: resolveOutputFormat(formatId)!,
      language: null,
      rawSettings: { speed: engineSpeed(checked.speed) },
      // `instructions` has no effect: the engines take no style prompt (documented).
      options: { latency: 0, seed: null, textNormalization: 'auto', previousText: null, nextText: null },
    },
  };
}
