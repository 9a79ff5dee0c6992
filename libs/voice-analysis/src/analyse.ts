import { decimate2, lpc, yinTrack } from '@platform/speech-engine';
import { ANALYSIS_RATE } from './decode';
import { envelopePeaks, spectralCentroid } from './spectrum';
import { median, quantile, semitones } from './stats';

/** What the samples of a voice measure. Plain numbers, stored with the voice. */
export interface VoiceAnalysis {
  /** Seconds of audio analysed, and of it, seconds loud enough to be speech. */
  durationSec: number;
  speechSec: number;
  voicedSec: number;
  /** Fundamental frequency: median and 10th/90th percentiles of voiced frames, in Hz. */
  f0MedianHz: number;
  f0P10Hz: number;
  f0P90Hz: number;
  /** p90/p10 spread in semitones: how much the voice's intonation moves. */
  f0RangeSemitones: number;
  /** Energy-envelope peaks per second of speech: an estimate of syllables per second. */
  syllablesPerSec: number;
  /** RMS level of the speech frames in dBFS. */
  loudnessDbfs: number;
  /** Median spectral centroid and LPC formant estimates of voiced frames, in Hz. */
  spectralCentroidHz: number;
  formant1Hz: number;
  formant2Hz: number;
}

export class AnalysisError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AnalysisError';
  }
}

const HOP = ANALYSIS_RATE / 100; // 10 ms
const FRAME = Math.round(ANALYSIS_RATE * 0.025);
/** At least this much voiced speech across all samples, or the estimate is noise. */
export const MIN_VOICED_SEC = 0.5;

function frameRms(samples: Float32Array, start: number, size: number): number {
  let sum = 0;
  const end = Math.min(samples.length, start + size);
  for (let i = start; i < end; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / Math.max(1, end - start));
}

function db(x: number): number {
  return 20 * Math.log10(Math.max(1e-9, x));
}

/** Analyses one or more decoded recordings of the same speaker as one body of speech. */
export function analyseVoice(recordings: Float32Array[]): VoiceAnalysis {
  const f0s: number[] = [];
  const centroids: number[] = [];
  const f1s: number[] = [];
  const f2s: number[] = [];
  let speechFrames = 0;
  let voicedFrames = 0;
  let energySum = 0;
  let peaks = 0;
  let durationSec = 0;

  for (const samples of recordings) {
    durationSec += samples.length / ANALYSIS_RATE;
    const frames = Math.max(0, Math.floor((samples.length - FRAME) / HOP) + 1);
    const rms = Array.from({ length: frames }, (_, f) => frameRms(samples, f * HOP, FRAME));
    const loudest = Math.max(0, ...rms);
    // Speech frames: within 35 dB of the loudest frame and above -55 dBFS (silence and hiss drop out).
    const floor = Math.max(loudest * Math.pow(10, -35 / 20), Math.pow(10, -55 / 20));
    const active = rms.map((r) => r >= floor);
    // Pitch at half rate (4x less work, F0 ≤ 500 Hz loses nothing), only on speech frames.
    const half = ANALYSIS_RATE / 2;
    const track = yinTrack(decimate2(samples), {
      sampleRate: half,
      hop: HOP / 2,
      frameSize: Math.round(half * 0.04),
      include: (f) => active[f] === true,
    });
    let spectralBudget = 100;
    for (let f = 0; f < frames; f++) {
      if (!active[f]) continue;
      speechFrames++;
      energySum += rms[f]! * rms[f]!;
      const hz = track[f];
      if (hz === null || hz === undefined) continue;
      voicedFrames++;
      f0s.push(hz);
      // Spectral measures on every third voiced frame (bounded): they vary slowly.
      if (voicedFrames % 3 === 0 && spectralBudget-- > 0) {
        const frame = preEmphasised(samples, f * HOP, FRAME);
        centroids.push(spectralCentroid(frame, ANALYSIS_RATE));
        const a = lpc(frame, 14);
        const formants = a ? envelopePeaks(a, ANALYSIS_RATE) : [];
        if (formants[0] !== undefined) f1s.push(formants[0]);
        if (formants[1] !== undefined) f2s.push(formants[1]);
      }
    }
    peaks += countSyllablePeaks(rms, active);
  }

  const voicedSec = voicedFrames / 100;
  if (voicedSec < MIN_VOICED_SEC) {
    throw new AnalysisError(
      `the samples hold ${voicedSec.toFixed(2)} s of voiced speech; at least ${MIN_VOICED_SEC} s is needed`,
    );
  }
  // Octave errors of YIN land far from the bulk; keep the frames within an octave of the median.
  const rough = median(f0s);
  const clean = f0s.filter((hz) => hz > rough / 2 && hz < rough * 2);
  const p10 = quantile(clean, 0.1);
  const p90 = quantile(clean, 0.9);
  const speechSec = speechFrames / 100;
  return {
    durationSec: round(durationSec, 3),
    speechSec: round(speechSec, 2),
    voicedSec: round(voicedSec, 2),
    f0MedianHz: round(median(clean), 1),
    f0P10Hz: round(p10, 1),
    f0P90Hz: round(p90, 1),
    f0RangeSemitones: round(semitones(p90 / p10), 2),
    syllablesPerSec: round(peaks / Math.max(0.1, speechSec), 2),
    loudnessDbfs: round(db(Math.sqrt(energySum / Math.max(1, speechFrames))), 1),
    spectralCentroidHz: round(median(centroids), 0),
    formant1Hz: round(f1s.length ? median(f1s) : 0, 0),
    formant2Hz: round(f2s.length ? median(f2s) : 0, 0),
  };
}

function preEmphasised(samples: Float32Array, start: number, size: number): Float64Array {
  const frame = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    const x = samples[start + i] ?? 0;
    const prev = samples[start + i - 1] ?? 0;
    // Pre-emphasis flattens the glottal tilt; the Hann window limits leakage.
    frame[i] = (x - 0.97 * prev) * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (size - 1)));
  }
  return frame;
}

/**
 * Syllable nuclei as peaks of the smoothed energy envelope: a peak at least 3 dB above the dips
 * on both sides, at least 100 ms after the previous one, inside speech.
 */
function countSyllablePeaks(rms: number[], active: boolean[]): number {
  const smooth = rms.map((_, i) => {
    let sum = 0;
    let n = 0;
    for (let k = -3; k <= 3; k++) {
      const v = rms[i + k];
      if (v !== undefined) {
        sum += v;
        n++;
      }
    }
    return db(sum / n);
  });
  let count = 0;
  let last = -100;
  for (let i = 1; i < smooth.length - 1; i++) {
    if (!active[i] || !(smooth[i]! > smooth[i - 1]! && smooth[i]! >= smooth[i + 1]!)) continue;
    if (i - last < 10) continue;
    let leftMin = smooth[i]!;
    for (let k = i - 1; k >= Math.max(0, i - 25); k--) leftMin = Math.min(leftMin, smooth[k]!);
    let rightMin = smooth[i]!;
    for (let k = i + 1; k < Math.min(smooth.length, i + 25); k++) rightMin = Math.min(rightMin, smooth[k]!);
    if (smooth[i]! - leftMin >= 3 && smooth[i]! - rightMin >= 3) {
      count++;
      last = i;
    }
  }
  return count;
}

function round(value: number, digits: number): number {
  const f = Math.pow(10, digits);
  return Number.isFinite(value) ? Math.round(value * f) / f : 0;
}
