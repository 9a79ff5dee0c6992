import type { EngineVoiceParams } from '@platform/speech-engine';

/** What a voice sounds like with no character applied: eSpeak NG's own defaults. */
export const NEUTRAL_PARAMS: EngineVoiceParams = {
  voice: 'en-us',
  variant: 'm3',
  pitch: 50,
  pitchRange: 50,
  speed: 175,
  amplitude: 100,
};

export const PARAM_BOUNDS = {
  pitch: [0, 99],
  pitchRange: [0, 99],
  speed: [80, 450],
  amplitude: [0, 200],
} as const;

export function clamp(value: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return min;
  return Math.min(max, Math.max(min, value));
}

/**
 * How strongly the derived character is applied for a given `similarity_boost`: the default
 * setting (0.75) and above apply it fully; below, the voice blends linearly towards the neutral
 * voice (0 → neutral). Full strength at the default keeps a clone sounding like its samples
 * without callers having to know about this knob.
 */
function similarityStrength(similarityBoost: number | undefined): number {
  if (similarityBoost === undefined || !Number.isFinite(similarityBoost)) return 1;
  return clamp(similarityBoost / 0.75, 0, 1);
}

/**
 * Applies `similarity_boost` to a cloned voice's derived parameters. Numeric parameters are
 * interpolated; the variant (the timbre) switches to the neutral one only below half strength.
 */
export function applySimilarity(derived: EngineVoiceParams, similarityBoost: number | undefined): EngineVoiceParams {
  const k = similarityStrength(similarityBoost);
  if (k >= 1) return { ...derived };
  const mix = (a: number, b: number) => Math.round(a + (b - a) * k);
  return {
    voice: derived.voice,
    variant: k >= 0.5 ? derived.variant : NEUTRAL_PARAMS.variant,
    pitch: mix(NEUTRAL_PARAMS.pitch, derived.pitch),
    pitchRange: mix(NEUTRAL_PARAMS.pitchRange, derived.pitchRange),
    speed: mix(NEUTRAL_PARAMS.speed, derived.speed),
    amplitude: mix(NEUTRAL_PARAMS.amplitude, derived.amplitude),
  };
}
