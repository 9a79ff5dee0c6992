import { AnalysisError, analyseVoice, type VoiceAnalysis } from './analyse';
import { decodeAudio, DecodeError, type DecodeFailure } from './decode';
import { deriveParams } from './derive';
import type { EngineVoiceParams } from '@platform/speech-engine';

export interface CloneLimits {
  /** Longer samples are refused (`too_long`). */
  maxFileSeconds: number;
  /** Shorter samples are refused (`too_short`). */
  minFileSeconds: number;
}

/** Why samples cannot make a voice. `file` is the index of the sample at fault. Plain data: it crosses threads. */
export type CloneFailure =
  | { kind: DecodeFailure; file: number }
  | { kind: 'too_short'; file: number }
  | { kind: 'too_little_speech'; message: string };

export type CloneOutcome =
  | { ok: true; analysis: VoiceAnalysis & { timbreDistance: number }; engineParams: EngineVoiceParams }
  | { ok: false; failure: CloneFailure };

/**
 * Decodes every sample (refusing what is not audio, corrupt, too short or too long), analyses them
 * together as one speaker, and derives engine parameters. CPU-heavy for long samples (seconds for
 * ten two-minute files): the synthesis workers run it on a thread of its own (a voice-analysis job), never on
 * an event loop that serves requests.
 */
export async function analyseClone(samples: readonly Uint8Array[], limits: CloneLimits): Promise<CloneOutcome> {
  const decoded: Float32Array[] = [];
  for (const [file, bytes] of samples.entries()) {
    try {
      const audio = await decodeAudio(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
        maxDurationSec: limits.maxFileSeconds,
      });
      if (audio.durationSec < limits.minFileSeconds) return { ok: false, failure: { kind: 'too_short', file } };
      decoded.push(audio.samples);
    } catch (err) {
      if (err instanceof DecodeError) return { ok: false, failure: { kind: err.reason, file } };
      throw err;
    }
  }
  let analysis: VoiceAnalysis;
  try {
    analysis = analyseVoice(decoded);
  } catch (err) {
    if (err instanceof AnalysisError)
      return { ok: false, failure: { kind: 'too_little_speech', message: err.message } };
    throw err;
  }
  const derived = deriveParams(analysis);
  return { ok: true, analysis: { ...analysis, timbreDistance: derived.timbreDistance }, engineParams: derived.params };
}
