import { changeVoice } from './change-voice';
import { PITCH_POINTS, VARIANTS } from './espeak-calibration';
import { ENGINE_SAMPLE_RATE } from './espeak';
import type { EngineVoiceParams } from './voice-params';

/**
 * A voice's identity on the neural model, which has one speaker of its own: the median pitch it
 * speaks at and how far its formants (timbre) sit from that speaker's (a ratio; 1 leaves them).
 */
export interface VoiceColour {
  pitchHz: number;
  formantRatio: number;
}

/**
 * Median F0 of the neural model's own speaker (Piper `en_US-joe-medium`), about 85–100 Hz
 * depending on the sentence: what a voice's pitch is compared with to choose its formant shift.
 */
export const NEURAL_SPEAKER_F0_HZ = 90;

/**
 * The median F0 an eSpeak NG voice speaks at: its variant's calibration curve (espeak-calibration.ts)
 * at its pitch setting, interpolated in log-frequency. Null for a variant without calibration.
 */
export function espeakPitchHz(variant: string, pitch: number): number | null {
  const curve = VARIANTS.find((v) => v.variant === variant)?.f0AtPitch;
  if (!curve) return null;
  const p = Math.min(99, Math.max(0, pitch));
  let i = 0;
  while (i < PITCH_POINTS.length - 2 && p > PITCH_POINTS[i + 1]!) i++;
  const t = (p - PITCH_POINTS[i]!) / (PITCH_POINTS[i + 1]! - PITCH_POINTS[i]!);
  return Math.exp(Math.log(curve[i]!) + t * (Math.log(curve[i + 1]!) - Math.log(curve[i]!)));
}

/**
 * Formants follow pitch part of the way: a voice an octave higher has a shorter vocal tract, not
 * one half as long. The fourth root of the pitch ratio to the model's speaker (×2.5 pitch, the
 * highest premade voice, → ×1.26 formants, about what separates a man's vocal tract from a
 * woman's), bounded.
 */
const FORMANT_EXPONENT = 0.25;
const FORMANT_BOUNDS = [0.9, 1.25] as const;

/**
 * The colour that makes the neural speaker sound like `voice` (its pitch at its settings and a
 * matching formant shift), or null when the voice is the neural speaker itself or its variant has
 * no calibration (then the model speaks as itself).
 */
export function neuralColour(voice: Pick<EngineVoiceParams, 'variant' | 'pitch' | 'neural'>): VoiceColour | null {
  if (voice.neural) return null;
  const pitchHz = espeakPitchHz(voice.variant, voice.pitch);
  if (pitchHz === null) return null;
  const formantRatio = Math.min(
    FORMANT_BOUNDS[1],
    Math.max(FORMANT_BOUNDS[0], Math.pow(pitchHz / NEURAL_SPEAKER_F0_HZ, FORMANT_EXPONENT)),
  );
  return { pitchHz, formantRatio };
}

/** Shorter pieces than this are passed through: a few milliseconds hold no period to measure. */
const MIN_COLOUR_SECONDS = 0.1;

/**
 * Applies a voice colour to one piece of the neural speaker's 16-bit mono PCM at the engine's rate:
 * its median pitch moves to the voice's (its intonation kept around it) and its formants by the
 * colour's ratio, at the same length (change-voice.ts: resampling, then TD-PSOLA, as Praat's
 * "Change gender"). PSOLA, not a phase vocoder: Rubber Band's formant-preserving shift left a third
 * to half of the frames of a short piece an octave above the target. CPU work of about 10 ms per
 * second of audio: the neural model's inference thread runs it right after the inference
 * (`synthesizePiperPcm`'s `colour`), never an event loop that serves requests.
 */
export function applyVoiceColour<T extends Int16Array>(
  pcm: T,
  colour: VoiceColour,
  sampleRate = ENGINE_SAMPLE_RATE,
): T | Int16Array<ArrayBuffer> {
  if (pcm.length < MIN_COLOUR_SECONDS * sampleRate) return pcm;
  return changeVoice(pcm, sampleRate, colour.formantRatio, colour.pitchHz);
}
