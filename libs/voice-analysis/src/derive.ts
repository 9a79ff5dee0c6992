import type { VoiceAnalysis } from './analyse';
import {
  ENGINE_LOUDNESS_DBFS_AT_100,
  PITCH_POINTS,
  SYLLABLES_PER_SEC,
  VARIANTS,
  type EngineVoiceParams,
  type VariantCalibration,
} from '@platform/speech-engine';
import { clamp, PARAM_BOUNDS } from './engine-params';

/**
 * The pitch setting (0–99) at which a variant's median F0 is `targetHz`: inverse of the
 * calibration curve, piecewise linear in log-frequency; null when out of the variant's reach.
 */
export function pitchFor(variant: VariantCalibration, targetHz: number): number | null {
  const f = variant.f0AtPitch;
  const logT = Math.log(targetHz);
  if (targetHz < f[0] * 0.97 || targetHz > f[4] * 1.03) return null;
  for (let i = 0; i < f.length - 1; i++) {
    const lo = Math.log(f[i]!);
    const hi = Math.log(f[i + 1]!);
    if (logT <= hi || i === f.length - 2) {
      const t = (logT - lo) / (hi - lo);
      return clamp(PITCH_POINTS[i]! + t * (PITCH_POINTS[i + 1]! - PITCH_POINTS[i]!), 0, 99);
    }
  }
  return null;
}

export interface Derivation {
  params: EngineVoiceParams;
  /** Why this variant: its timbre distance to the samples (lower is closer). */
  timbreDistance: number;
}

/**
 * Maps an analysis to engine parameters: a parametric match, not a neural clone.
 * 1. Variant: among the variants whose pitch range can reach the samples' median F0, the one
 *    whose spectral envelope (centroid, F1, F2) is nearest, with a small preference for variants
 *    that reach it near their natural pitch (less distortion).
 * 2. Pitch: the setting at which that variant's median F0 equals the samples' (calibration curve).
 * 3. Range: the samples' intonation spread relative to the variant's own, on eSpeak's 0–99 scale.
 * 4. Speed: words per minute from the syllable rate (calibrated on eSpeak itself).
 * 5. Amplitude: the level difference to eSpeak's, capped to 20–200 (speaker boost normalises anyway).
 */
export function deriveParams(analysis: VoiceAnalysis, language = 'en-us'): Derivation {
  let best: { variant: VariantCalibration; pitch: number; distance: number } | null = null;
  for (const variant of VARIANTS) {
    const pitch = pitchFor(variant, analysis.f0MedianHz);
    if (pitch === null) continue;
    const timbre =
      Math.abs(Math.log(Math.max(1, analysis.spectralCentroidHz) / variant.centroidHz)) +
      0.5 * Math.abs(Math.log(Math.max(1, analysis.formant1Hz) / variant.formant1Hz)) +
      0.5 * Math.abs(Math.log(Math.max(1, analysis.formant2Hz) / variant.formant2Hz));
    const distance = timbre + 0.3 * (Math.abs(pitch - 50) / 50);
    if (!best || distance < best.distance) best = { variant, pitch, distance };
  }
  if (!best) {
    // Beyond every variant's reach (very low or very high voices): the nearest extreme.
    const low = analysis.f0MedianHz < 120;
    const variant = low
      ? VARIANTS.reduce((a, b) => (b.f0AtPitch[0] < a.f0AtPitch[0] ? b : a))
      : VARIANTS.reduce((a, b) => (b.f0AtPitch[4] > a.f0AtPitch[4] ? b : a));
    best = { variant, pitch: low ? 0 : 99, distance: Number.POSITIVE_INFINITY };
  }
  const range = clamp(
    Math.round((50 * analysis.f0RangeSemitones) / best.variant.rangeSemitones),
    ...PARAM_BOUNDS.pitchRange,
  );
  const wpm = (analysis.syllablesPerSec - SYLLABLES_PER_SEC.intercept) / SYLLABLES_PER_SEC.perWpm;
  const amplitude = 100 * Math.pow(10, (analysis.loudnessDbfs - ENGINE_LOUDNESS_DBFS_AT_100) / 20);
  return {
    params: {
      voice: language,
      variant: best.variant.variant,
      pitch: Math.round(best.pitch),
      pitchRange: range,
      speed: Math.round(clamp(wpm, ...PARAM_BOUNDS.speed)),
      amplitude: Math.round(clamp(amplitude, 20, 200)),
    },
    timbreDistance: Number.isFinite(best.distance) ? Math.round(best.distance * 1000) / 1000 : -1,
  };
}
