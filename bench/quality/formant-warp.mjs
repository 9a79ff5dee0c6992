// Where a voice's formants sit against the neural speaker's, as one factor: the frequency warp that
// best maps Joe's mean spectral envelope onto the voice's (how vocal-tract-length normalisation
// estimates a speaker's warp factor). The envelope is cepstrally smoothed below the pitch
// harmonics, so unlike LPC formant picking it does not lock onto a harmonic when F0 is high: a
// pitch change alone measures ×1.00, a formant change alone its ratio (figures at LIFTER_SECONDS).

const FRAME = 512; // 32 ms at 16 kHz, the rate bench.mjs measures at
const HOP = 256;
/**
 * Quefrency kept by the cepstral smoothing: 0.5 ms, the envelope's broad shape (which a change of
 * vocal-tract length scales), far below any voice's period. Measured at 16 kHz on Joe resampled by
 * ×0.9 / 1.1 / 1.2 / 1.25 (an exact formant shift): ×0.895 / 1.085 / 1.205 / 1.242, and a pitch change
 * alone to 220 Hz ×1.000; a longer lifter (0.75–1 ms) follows the harmonics and the sentence, and
 * under-reads the same shifts by up to 12 %.
 */
const LIFTER_SECONDS = 0.0005;
/** The band the warp is fitted over: the first three formants of adult and high voices. */
const BAND_HZ = [300, 3500];
const WARPS = { from: 0.75, to: 1.5, step: 0.0025 };

/** The warp factor α with voice(f) ≈ reference(f / α) over BAND_HZ (16-bit mono PCM at `rate`). */
export function formantWarp(reference, voice, rate = 16_000) {
  const lifter = Math.round(rate * LIFTER_SECONDS);
  const ref = meanEnvelope(reference, lifter);
  const other = meanEnvelope(voice, lifter);
  const binHz = rate / FRAME;
  const bins = [];
  for (let k = Math.ceil(BAND_HZ[0] / binHz); k <= Math.floor(BAND_HZ[1] / binHz); k++) bins.push(k);
  let best = 1;
  let bestError = Infinity;
  for (let alpha = WARPS.from; alpha <= WARPS.to + 1e-9; alpha += WARPS.step) {
    // The gain difference is not a formant difference: the error is the variance of the gap.
    const gaps = bins.map((k) => other[k] - interpolate(ref, k / alpha));
    const mean = gaps.reduce((s, g) => s + g, 0) / gaps.length;
    const error = gaps.reduce((s, g) => s + (g - mean) ** 2, 0);
    if (error < bestError) {
      bestError = error;
      best = alpha;
    }
  }
  return best;
}

/** The mean log power envelope (FRAME / 2 + 1 bins) of the loud frames of 16-bit PCM. */
function meanEnvelope(pcm, lifter) {
  const frames = [];
  for (let start = 0; start + FRAME <= pcm.length; start += HOP) frames.push(start);
  const energy = frames.map((start) => {
    let sum = 0;
    for (let i = 0; i < FRAME; i++) sum += pcm[start + i] ** 2;
    return sum;
  });
  // Speech, not pauses: frames within 20 dB of the loudest 5 %.
  const loud = [...energy].sort((a, b) => a - b)[Math.floor(energy.length * 0.95)] / 100;
  const mean = new Float64Array(FRAME / 2 + 1);
  let count = 0;
  const re = new Float64Array(FRAME);
  const im = new Float64Array(FRAME);
  frames.forEach((start, f) => {
    if (energy[f] < loud) return;
    for (let i = 0; i < FRAME; i++) {
      re[i] = (pcm[start + i] / 32768) * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FRAME));
      im[i] = 0;
    }
    fft(re, im);
    for (let i = 0; i < FRAME; i++) {
      re[i] = Math.log(re[i] ** 2 + im[i] ** 2 + 1e-10);
      im[i] = 0;
    }
    // Real cepstrum (the inverse transform of a real, even spectrum), liftered, and back.
    fft(re, im);
    for (let i = 0; i < FRAME; i++) {
      const q = Math.min(i, FRAME - i);
      if (q > lifter) re[i] = 0;
      re[i] /= FRAME;
      im[i] = 0;
    }
    fft(re, im);
    for (let k = 0; k <= FRAME / 2; k++) mean[k] += re[k];
    count++;
  });
  if (count === 0) throw new Error('no speech to measure formants on');
  return mean.map((v) => v / count);
}

function interpolate(values, at) {
  const i = Math.floor(at);
  if (i < 0) return values[0];
  if (i >= values.length - 1) return values[values.length - 1];
  const t = at - i;
  return values[i] * (1 - t) + values[i + 1] * t;
}

/** In-place radix-2 FFT (length a power of two). */
function fft(re, im) {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const angle = (-2 * Math.PI) / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < size / 2; k++) {
        const wr = Math.cos(angle * k);
        const wi = Math.sin(angle * k);
        const a = start + k;
        const b = a + size / 2;
        const tr = re[b] * wr - im[b] * wi;
        const ti = re[b] * wi + im[b] * wr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
}
