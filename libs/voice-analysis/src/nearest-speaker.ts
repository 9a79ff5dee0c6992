import { languageFamily } from '@platform/speech-engine';
import type { VoiceAnalysis } from './analyse';

/** What a voice measures that places it among speakers: median pitch and the spectral envelope. */
export type SpeakerFeatures = Pick<VoiceAnalysis, 'f0MedianHz' | 'spectralCentroidHz' | 'formant1Hz' | 'formant2Hz'>;

/** An installed Piper speaker with its features (measured from a reference sentence it said). */
export interface MeasuredSpeaker {
  model: string;
  id: number;
  /** `languageFamily` of its voice (`en`, `de`, …). */
  language: string;
  features: SpeakerFeatures;
}

/**
 * How far two voices sound apart: pitch (log ratio of the medians) weighs most, since the colour
 * moves pitch exactly but formants only part of the way; then the spectral envelope (centroid, F1,
 * F2), weighted as the eSpeak variant choice weighs it (derive.ts). Log ratios: a voice twice as
 * high is as far above as half as high is below.
 */
export function speakerDistance(a: SpeakerFeatures, b: SpeakerFeatures): number {
  const log = (x: number, y: number) => Math.abs(Math.log(Math.max(1, x) / Math.max(1, y)));
  return (
    log(a.f0MedianHz, b.f0MedianHz) +
    log(a.spectralCentroidHz, b.spectralCentroidHz) +
    0.5 * log(a.formant1Hz, b.formant1Hz) +
    0.5 * log(a.formant2Hz, b.formant2Hz)
  );
}

/**
 * The installed speaker a clone starts from: among the speakers of the clone's language, the one
 * nearest to its samples (`speakerDistance`; ties to the first, in file then speaker order). Null
 * with fewer than two speakers installed (the clone then speaks with the language's default, as it
 * did before there were several) or none of its language.
 */
export function nearestSpeaker(
  samples: SpeakerFeatures,
  speakers: readonly MeasuredSpeaker[],
  language: string,
): { model: string; id: number } | null {
  if (speakers.length < 2) return null;
  const family = languageFamily(language);
  let best: { speaker: MeasuredSpeaker; distance: number } | null = null;
  for (const speaker of speakers) {
    if (speaker.language !== family) continue;
    const distance = speakerDistance(samples, speaker.features);
    if (!best || distance < best.distance) best = { speaker, distance };
  }
  return best ? { model: best.speaker.model, id: best.speaker.id } : null;
}
