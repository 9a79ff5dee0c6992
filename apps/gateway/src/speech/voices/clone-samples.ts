import { SpeechError } from '@platform/errors';
import type { EngineVoiceParams } from '@platform/speech-engine';
import { AnalysisPoolFull, MEDIA_TYPES, sniffContainer, type AnalysisPool, type CloneFailure, type VoiceAnalysis } from '../../voice-analysis';
import type { SampleDoc, SampleInput } from '@platform/speech-store';
import { UPLOAD_LIMITS } from './upload-limits';

export interface Cloned {
  analysis: VoiceAnalysis & { timbreDistance: number };
  engineParams: EngineVoiceParams;
  /** The new samples, stored by the analysis thread under the voice id given (the kept ones are not stored again). */
  stored: SampleDoc[];
}

function bad(message: string): SpeechError {
  return new SpeechError(400, 'bad_request', message);
}

function refusal(failure: CloneFailure, samples: readonly SampleInput[]): SpeechError {
  if (failure.kind === 'too_little_speech') return bad(`Too little speech to clone: ${failure.message}.`);
  const name = samples[failure.file]?.fileName ?? 'sample';
  if (failure.kind === 'too_short') return bad(`The file ${name} is shorter than ${UPLOAD_LIMITS.minFileSeconds} second.`);
  const why = failure.kind === 'not_audio' ? 'is not a WAV, MP3, Ogg/Opus or FLAC file' : failure.kind === 'too_long' ? `is longer than ${UPLOAD_LIMITS.maxFileSeconds} seconds` : 'is corrupt or truncated';
  return bad(`The file ${name} ${why}.`);
}

/**
 * Decodes every sample (refusing what is not audio, corrupt, too short or too long), analyses them
 * together as one speaker, derives engine parameters and, when they make a voice, stores the `added`
 * samples in GridFS under `voiceId`: all on a thread of `pool` (seconds of CPU and tens of megabytes for
 * long samples: never on the event loop). `kept` samples are analysed with them but not stored again.
 * A full pool is a 429; a store that cannot take the samples now, a 503 (`SampleStoreUnavailable`). The sample bytes are moved to the
 * thread: the arrays given are empty afterwards.
 */
export async function cloneFromSamples(pool: AnalysisPool, voiceId: string, kept: SampleInput[], added: SampleInput[]): Promise<Cloned> {
  const samples = [...kept, ...added];
  let result;
  try {
    result = await pool.analyse(
      samples.map((s) => s.bytes),
      { maxFileSeconds: UPLOAD_LIMITS.maxFileSeconds, minFileSeconds: UPLOAD_LIMITS.minFileSeconds },
      { voiceId, files: [...kept.map(() => null), ...added.map(({ fileName, mimeType }) => ({ fileName, mimeType }))] },
    );
  } catch (err) {
    if (err instanceof AnalysisPoolFull) throw new SpeechError(429, 'too_many_requests', 'Too many voice samples are being analysed right now; try again shortly.');
    throw err;
  }
  if (!result.outcome.ok) throw refusal(result.outcome.failure, samples);
  return { analysis: result.outcome.analysis, engineParams: result.outcome.engineParams, stored: result.stored };
}

/** The media type we store for a sample: what its bytes are, not what the client claimed. */
export function sampleMediaType(bytes: Buffer): string {
  const container = sniffContainer(bytes);
  return container ? MEDIA_TYPES[container] : 'application/octet-stream';
}
