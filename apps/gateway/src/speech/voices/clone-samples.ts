import { SpeechError } from '@platform/errors';
import { AnalysisError, analyseVoice, decodeAudio, DecodeError, deriveParams, MEDIA_TYPES, sniffContainer, type VoiceAnalysis, type VoiceEngineParams } from '@platform/voice-analysis';
import type { SampleInput } from '@platform/speech-store';
import { UPLOAD_LIMITS } from './upload-limits';

export interface Cloned {
  analysis: VoiceAnalysis & { timbreDistance: number };
  engineParams: VoiceEngineParams;
}

function bad(message: string): SpeechError {
  return new SpeechError(400, 'bad_request', message);
}

/**
 * Decodes every sample (refusing what is not audio, corrupt, too short or too long), analyses them
 * together as one speaker, and derives engine parameters. Pure with respect to storage.
 */
export async function cloneFromSamples(samples: SampleInput[]): Promise<Cloned> {
  const decoded: Float32Array[] = [];
  for (const sample of samples) {
    try {
      const audio = await decodeAudio(sample.bytes, { maxDurationSec: UPLOAD_LIMITS.maxFileSeconds });
      if (audio.durationSec < UPLOAD_LIMITS.minFileSeconds) {
        throw bad(`The file ${sample.fileName} is shorter than ${UPLOAD_LIMITS.minFileSeconds} second.`);
      }
      decoded.push(audio.samples);
    } catch (err) {
      if (err instanceof DecodeError) {
        const why = err.reason === 'not_audio' ? 'is not a WAV, MP3, Ogg/Opus or FLAC file' : err.reason === 'too_long' ? `is longer than ${UPLOAD_LIMITS.maxFileSeconds} seconds` : 'is corrupt or truncated';
        throw bad(`The file ${sample.fileName} ${why}.`);
      }
      throw err;
    }
  }
  let analysis: VoiceAnalysis;
  try {
    analysis = analyseVoice(decoded);
  } catch (err) {
    if (err instanceof AnalysisError) throw bad(`Too little speech to clone: ${err.message}.`);
    throw err;
  }
  const derived = deriveParams(analysis);
  return { analysis: { ...analysis, timbreDistance: derived.timbreDistance }, engineParams: derived.params };
}

/** The media type we store for a sample: what its bytes are, not what the client claimed. */
export function sampleMediaType(bytes: Buffer): string {
  const container = sniffContainer(bytes);
  return container ? MEDIA_TYPES[container] : 'application/octet-stream';
}
