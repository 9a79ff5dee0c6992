import { SpeechError } from '@platform/errors';
import type { EngineVoiceParams } from '@platform/speech-engine';
import {
  AnalysisPoolFull,
  MEDIA_TYPES,
  VoiceChangedMeanwhile,
  sniffContainer,
  type AnalysisPool,
  type CloneFailure,
  type VoiceAnalysis,
} from '../../voice-analysis';
import { voiceChanged, type SampleDoc, type SampleInput } from '@platform/speech-store';
import { UPLOAD_LIMITS } from './upload-limits';

interface Cloned {
  analysis: VoiceAnalysis & { timbreDistance: number };
  engineParams: EngineVoiceParams;
  /** The new samples, stored by the analysis thread under the voice id given (the kept ones are not stored again). */
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

/**
 * Decodes every sample (refusing what is not audio, corrupt, too short or too long), analyses them
 * together as one speaker, derives engine parameters and, when they make a voice, stores the `added`
 * samples in GridFS under `voiceId`: all on a thread of `pool` (seconds of CPU and tens of megabytes for
 * long samples: never on the event loop). `kept` samples of the voice are read by the thread and analysed
 * with them. A full pool is a 429; a store that cannot serve now, a 503 (`SampleStoreUnavailable`); a kept
 * sample dropped meanwhile by another change, a 409. The added bytes are moved to the thread: the arrays
 * given are empty afterwards.
 */
export async function cloneFromSamples(
  pool: AnalysisPool,
  voiceId: string,
  kept: readonly SampleDoc[],
  added: readonly SampleInput[],
): Promise<Cloned> {
  let result;
  try {
    result = await pool.analyse(
      added.map((s) => s.bytes),
      { maxFileSeconds: UPLOAD_LIMITS.maxFileSeconds, minFileSeconds: UPLOAD_LIMITS.minFileSeconds },
      {
        voiceId,
        kept: kept.map((s) => ({ fileName: s.file_name, fileId: s.file_id.toHexString() })),
        files: added.map(({ fileName, mimeType }) => ({ fileName, mimeType })),
      },
    );
  } catch (err) {
    if (err instanceof AnalysisPoolFull)
      throw new SpeechError(
        429,
        'too_many_requests',
        'Too many voice samples are being analysed right now; try again shortly.',
      );
    if (err instanceof VoiceChangedMeanwhile) throw voiceChanged();
    throw err;
  }
  if (!result.outcome.ok)
    throw refusal(result.outcome.failure, [...kept.map((s) => s.file_name), ...added.map((s) => s.fileName)]);
  return { analysis: result.outcome.analysis, engineParams: result.outcome.engineParams, stored: result.stored };
}

/** The media type we store for a sample: what its bytes are, not what the client claimed. */
export function sampleMediaType(bytes: Buffer): string {
  const container = sniffContainer(bytes);
  return container ? MEDIA_TYPES[container] : 'application/octet-stream';
}
