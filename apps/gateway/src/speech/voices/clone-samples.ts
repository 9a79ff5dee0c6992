import { SpeechError } from '@platform/errors';
import type { EngineVoiceParams } from '@platform/speech-engine';
import { MEDIA_TYPES, sniffContainer, type CloneFailure, type VoiceAnalysis } from '@platform/voice-analysis';
import {
  removeStagedSampleFiles,
  sampleFromData,
  stageSampleFiles,
  voiceChanged,
  type SampleDoc,
  type SampleInput,
  type SpeechStore,
} from '@platform/speech-store';
import { AnalysisNotStarted, type AnalysisQueue } from './analysis-queue';
import { UPLOAD_LIMITS } from './upload-limits';

interface Cloned {
  analysis: VoiceAnalysis & { timbreDistance: number };
  engineParams: EngineVoiceParams;
  /** The new samples, stored under the voice id given (the kept ones are not stored again). */
  stored: SampleDoc[];
}

function bad(message: string): SpeechError {
  return new SpeechError(400, 'bad_request', message);
}

function refusal(failure: CloneFailure, names: readonly string[]): SpeechError {
  if (failure.kind === 'too_little_speech') return bad(`Too little speech to clone: ${failure.message}.`);
  const name = names[failure.file] ?? 'sample';
  if (failure.kind === 'too_short')
    return bad(`The file ${name} is shorter than ${UPLOAD_LIMITS.minFileSeconds} second.`);
  const why =
    failure.kind === 'not_audio'
      ? 'is not a WAV, MP3, Ogg/Opus or FLAC file'
      : failure.kind === 'too_long'
        ? `is longer than ${UPLOAD_LIMITS.maxFileSeconds} seconds`
        : 'is corrupt or truncated';
  return bad(`The file ${name} ${why}.`);
}

/** The analysis could not be had now: the client may retry (docs/speech.md, "Cloning a voice"). */
function unavailable(err: unknown): SpeechError {
  const message =
    err instanceof AnalysisNotStarted
      ? 'No worker could analyse the voice samples right now; try again shortly.'
      : 'The voice samples could not be analysed right now; try again shortly.';
  const waited = err instanceof AnalysisNotStarted ? err.waitedMs : 5_000;
  return new SpeechError(503, 'error', message, { retryAfterSeconds: Math.max(1, Math.ceil(waited / 1000)) });
}

/**
 * Writes the `added` samples to GridFS under `voiceId` and has a synthesis worker decode them (refusing
 * what is not audio, corrupt, too short or too long), analyse them with the voice's `kept` ones as one
 * speaker and derive engine parameters: a voice-analysis job, awaited within its bounds (seconds of CPU
 * for long samples: never on the gateway). When they do not make a voice, or no answer comes, the files
 * written are removed again. A kept sample dropped meanwhile by another change is a 409; no worker, or a
 * failed job, a 503 with Retry-After.
 */
export async function cloneFromSamples(
  store: SpeechStore,
  analysis: AnalysisQueue,
  voiceId: string,
  kept: readonly SampleDoc[],
  added: readonly SampleInput[],
): Promise<Cloned> {
  const staged = await stageSampleFiles(store.samples, voiceId, added);
  let made = false;
  try {
    let result;
    try {
      result = await analysis.analyse({
        voiceId,
        kept: kept.map((s) => ({ fileName: s.file_name, fileId: s.file_id.toHexString() })),
        added: staged,
        limits: { maxFileSeconds: UPLOAD_LIMITS.maxFileSeconds, minFileSeconds: UPLOAD_LIMITS.minFileSeconds },
      });
    } catch (err) {
      throw unavailable(err);
    }
    if ('failure' in result) throw voiceChanged();
    if (!result.outcome.ok)
      throw refusal(result.outcome.failure, [...kept.map((s) => s.file_name), ...added.map((s) => s.fileName)]);
    made = true;
    return {
      analysis: result.outcome.analysis,
      engineParams: result.outcome.engineParams,
      stored: result.samples.map(sampleFromData),
    };
  } finally {
    // The voice's change takes the files over from here (and removes them if it does not happen).
    if (!made) await removeStagedSampleFiles(store.samples, staged);
  }
}

/** The media type we store for a sample: what its bytes are, not what the client claimed. */
export function sampleMediaType(bytes: Buffer): string {
  const container = sniffContainer(bytes);
  return container ? MEDIA_TYPES[container] : 'application/octet-stream';
}
