import { SpeechError } from '@platform/errors';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import {
  NEURAL_MODEL_ID,
  languageFamily,
  modelForLanguage,
  modelSpeaks,
  type PronunciationRule,
  type VoiceSettings,
} from '@platform/speech-engine';
import {
  FrameTimeoutError,
  historyRecord,
  UNAVAILABLE_STATUS,
  type ChunkFrame,
  type ResolvedVoice,
  type SpeechHooks,
  type SynthesisJobData,
} from '@platform/speech-jobs';
import { planPriority } from '@platform/speech-store';
import { applySimilarity } from '@platform/voice-analysis';
import { QueueWaitExceeded, type JobInput, type JobRunner } from './job-runner';
import { checkFormatPlan, checkSettings, type TtsRequest } from './parse-request';
import { resolveVoice } from './resolve-voice';

export interface PreparedJob {
  jobId: string;
  input: JobInput;
  priority: number;
  characters: number;
  /** When the generation was asked for (the job's `createdAt`, the history item's time). */
  createdAt: number;
  /** Settles the quota reservation (if any) with the characters delivered; safe to call once or more. */
  settle(delivered: number): Promise<void>;
  /**
   * Ends a generation whose client did not get the whole audio: the reservation is settled at 0
   * and the generation recorded in history as `state`, without audio (the `recordHistory` hook,
   * when the job is one that history keeps). Safe to call once or more; never throws.
   */
  giveUp(state: 'failed' | 'cancelled'): Promise<void>;
}

/** Resolves the voice, merges settings, reserves quota: everything before the job is queued. */
export async function prepareJob(
  deps: { hooks: SpeechHooks; runner: JobRunner; logger: Logger },
  identity: Identity & { sub: string },
  voiceId: string,
  request: TtsRequest,
  kind: JobInput['kind'],
  pieces?: string[],
): Promise<PreparedJob> {
  checkFormatPlan(request.format, identity.plan);
  const voice = await resolveVoice(deps.hooks, identity.sub, voiceId);
  // The request's language: its language_code, else the voice's own (eSpeak NG voice of the voice).
  const language = request.language?.id ?? voice.engine.voice;
  const model = request.modelFollowsLanguage ? modelForLanguage(request.model, language) : request.model;
  // The neural model speaks the installed Piper voices' languages, with any voice (an installed
  // speaker of the language, coloured to the voice in the worker).
  if (model.model_id === NEURAL_MODEL_ID && !modelSpeaks(model, language)) {
    const spoken = [...new Set(model.languages.map((l) => languageFamily(l.language_id)))].join(', ');
    throw new SpeechError(
      400,
      'bad_request',
      `model ${NEURAL_MODEL_ID} speaks the languages of the installed Piper voices (${spoken}); this request is in ${request.language?.name ?? `the voice's language (${voice.engine.voice})`}`,
    );
  }
  const settings = checkSettings(request.rawSettings, voice.settings ?? {});
  const pronunciation = await pronunciationRules(deps.hooks, identity.sub, request.pronunciationLocators);
  const jobId = deps.runner.newJobId();
  const createdAt = Date.now();
  const characters = [...request.text].length;
  let settled = false;
  let settle = async (_delivered: number) => undefined as void;
  const quota = deps.hooks.quota;
  if (quota) {
    const reservation = await quota.reserve(identity.sub, characters, jobId, identity.plan);
    if (!reservation.ok)
      throw new SpeechError(
        reservation.status === 'quota_exceeded' ? 429 : 401,
        reservation.status,
        reservation.message,
      );
    settle = async (delivered) => {
      if (settled) return;
      settled = true;
      await quota
        .settle(reservation.reservationId, delivered)
        .catch((err: unknown) => deps.logger.error({ err, jobId }, 'quota settle failed'));
    };
  }
  // Segments come cut (stream-input); a whole request is planned by the worker (planPieces: a
  // short first piece at every optimize_streaming_latency level, then whole sentences).
  const planned = pieces;
  const input: JobInput = {
    accountId: identity.sub,
    voice: jobVoice(voice, settings),
    modelId: model.model_id,
    ...(request.language ? { language: { id: request.language.id, espeak: request.language.espeak } } : {}),
    text: request.text,
    ...(planned ? { pieces: planned } : {}),
    settings,
    ...(pronunciation.length > 0 ? { pronunciation } : {}),
    ...(request.options.seed !== null ? { seed: request.options.seed } : {}),
    outputFormat: request.format.id,
    kind,
    recordHistory: kind !== 'websocket',
  };
  let gaveUp = false;
  const giveUp = async (state: 'failed' | 'cancelled') => {
    if (gaveUp) return;
    gaveUp = true;
    await settle(0);
    const record = deps.hooks.recordHistory;
    if (!record || !input.recordHistory) return;
    await record(
      historyRecord({ ...input, jobId, createdAt }, { state, contentType: request.format.contentType }),
    ).catch((err: unknown) => deps.logger.error({ err, jobId, state }, 'history record failed'));
  };
  return { jobId, characters, createdAt, priority: planPriority(identity.plan), settle, giveUp, input };
}

/**
 * The rules of the request's pronunciation dictionaries (`TtsRequest.pronunciationLocators`), resolved
 * before the quota is reserved: an unknown dictionary costs nothing. Without the speech database there
 * are no dictionaries to name.
 */
export async function pronunciationRules(
  hooks: SpeechHooks,
  accountId: string,
  locators: TtsRequest['pronunciationLocators'],
): Promise<PronunciationRule[]> {
  if (!locators?.length) return [];
  if (!hooks.resolvePronunciation)
    throw new SpeechError(400, 'bad_request', 'pronunciation dictionaries are not available on this server');
  return hooks.resolvePronunciation(accountId, locators);
}

/**
 * The voice as the job carries it. A cloned voice's derived parameters get `similarity_boost`
 * applied here, once the request's settings are merged with the voice's saved ones
 * (`applySimilarity`: full character from 0.75 up, blending towards the neutral voice below; see
 * docs/speech.md, "Cloning: method and limits"), and the job says so, so the worker does not scale
 * them again. Premade voices go as designed; the worker's `renderParams` applies the setting.
 */
function jobVoice(voice: ResolvedVoice, settings: VoiceSettings): SynthesisJobData['voice'] {
  const base = { voiceId: voice.voiceId, name: voice.name, category: voice.category };
  if (voice.category !== 'cloned') return { ...base, engine: voice.engine };
  return {
    ...base,
    engine: { ...voice.engine, ...applySimilarity(voice.engine, settings.similarity_boost) },
    similarityApplied: true,
  };
}

/** A frame that ends a job unsuccessfully, as the speech error the client sees. */
export function frameError(frame: ChunkFrame): SpeechError | null {
  // A job no worker could finish (its workers died): as when no worker answers at all.
  if (frame.type === 'error' && frame.status === UNAVAILABLE_STATUS)
    return new SpeechError(503, 'error', `speech synthesis is unavailable; try again (${frame.message})`);
  if (frame.type === 'error') return new SpeechError(502, 'error', `synthesis failed: ${frame.message}`);
  if (frame.type === 'cancelled') return new SpeechError(503, 'error', 'synthesis was cancelled');
  return null;
}

/** Failures of the pipeline itself (timeouts, Redis) in the speech error shape. */
export function pipelineError(err: unknown): SpeechError {
  if (err instanceof SpeechError) return err;
  if (err instanceof QueueWaitExceeded) {
    // Every worker's real-time slots were taken for the whole bound: a slot frees when a stream ends.
    return new SpeechError(503, 'error', 'all synthesis workers are busy; try again shortly', {
      retryAfterSeconds: Math.max(1, Math.ceil(err.waitedMs / 1000)),
    });
  }
  if (err instanceof FrameTimeoutError) return new SpeechError(503, 'error', 'speech synthesis timed out; try again');
  return new SpeechError(503, 'error', 'speech synthesis is unavailable; try again');
}
