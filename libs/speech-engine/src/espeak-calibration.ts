/**
 * How eSpeak NG 1.51's English variants measure with the gateway's voice analysis (`analyseVoice`
 * in libs/voice-analysis), on a 7-second calibration text (`en-us+<variant>`, default
 * speed and amplitude). Median F0 at `-p` 0, 25, 50, 75, 99; spectral centroid, F1, F2, F0 range
 * (semitones) at `-p 50`. Two users: cloning derives a clone's variant and pitch from it, and the
 * neural model takes a voice's pitch in hertz from it (voice-colour.ts). Regenerate with
 * `node apps/gateway/scripts/calibrate-voice-analysis.mjs` after an engine upgrade.
 */
export interface VariantCalibration {
  variant: string;
  gender: 'male' | 'female';
  f0AtPitch: [number, number, number, number, number];
  centroidHz: number;
  formant1Hz: number;
  formant2Hz: number;
  rangeSemitones: number;
}

export const PITCH_POINTS = [0, 25, 50, 75, 99] as const;

export const VARIANTS: VariantCalibration[] = [
  {
    variant: 'm1',
    gender: 'male',
    f0AtPitch: [60.9, 74.3, 93.3, 121.1, 157],
    centroidHz: 2144,
    formant1Hz: 563,
    formant2Hz: 1719,
    rangeSemitones: 4.99,
  },
  {
    variant: 'm2',
    gender: 'male',
    f0AtPitch: [61.5, 78.9, 101.2, 133.1, 176.9],
    centroidHz: 2534,
    formant1Hz: 516,
    formant2Hz: 1797,
    rangeSemitones: 3.01,
  },
  {
    variant: 'm3',
    gender: 'male',
    f0AtPitch: [70.1, 84.5, 106.8, 134.4, 172.3],
    centroidHz: 2340,
    formant1Hz: 555,
    formant2Hz: 1719,
    rangeSemitones: 4.01,
  },
  {
    variant: 'm4',
    gender: 'male',
    f0AtPitch: [64, 76.5, 95.4, 119.1, 152],
    centroidHz: 2456,
    formant1Hz: 594,
    formant2Hz: 1758,
    rangeSemitones: 4.56,
  },
  {
    variant: 'm5',
    gender: 'male',
    f0AtPitch: [67.9, 83, 103.6, 132.6, 171.9],
    centroidHz: 2364,
    formant1Hz: 547,
    formant2Hz: 1609,
    rangeSemitones: 3.69,
  },
  {
    variant: 'm6',
    gender: 'male',
    f0AtPitch: [64.9, 80.8, 101, 130.8, 171.3],
    centroidHz: 2389,
    formant1Hz: 563,
    formant2Hz: 1672,
    rangeSemitones: 3.66,
  },
  {
    variant: 'm7',
    gender: 'male',
    f0AtPitch: [77.1, 89.3, 106.3, 132.8, 169.4],
    centroidHz: 1697,
    formant1Hz: 500,
    formant2Hz: 1656,
    rangeSemitones: 4.96,
  },
  {
    variant: 'f1',
    gender: 'female',
    f0AtPitch: [116.7, 144.3, 180.6, 233.2, 305.5],
    centroidHz: 2527,
    formant1Hz: 594,
    formant2Hz: 1531,
    rangeSemitones: 3.92,
  },
  {
    variant: 'f2',
    gender: 'female',
    f0AtPitch: [133.6, 157.1, 194.6, 250.1, 323.2],
    centroidHz: 2789,
    formant1Hz: 594,
    formant2Hz: 1797,
    rangeSemitones: 4.57,
  },
  {
    variant: 'f3',
    gender: 'female',
    f0AtPitch: [156.1, 178.2, 211.6, 265.2, 337.5],
    centroidHz: 3065,
    formant1Hz: 594,
    formant2Hz: 1945,
    rangeSemitones: 4.92,
  },
  {
    variant: 'f4',
    gender: 'female',
    f0AtPitch: [114.6, 141.3, 179, 233.8, 307.9],
    centroidHz: 2774,
    formant1Hz: 594,
    formant2Hz: 1703,
    rangeSemitones: 3.86,
  },
  {
    variant: 'f5',
    gender: 'female',
    f0AtPitch: [133.5, 162.4, 204.9, 267.1, 351.1],
    centroidHz: 3320,
    formant1Hz: 625,
    formant2Hz: 1930,
    rangeSemitones: 3.85,
  },
];

/** eSpeak's level at amplitude 100 and its syllable rate as a function of words per minute. */
export const ENGINE_LOUDNESS_DBFS_AT_100 = -20.5;
export const SYLLABLES_PER_SEC = { intercept: 2.0, perWpm: 0.0155 };
