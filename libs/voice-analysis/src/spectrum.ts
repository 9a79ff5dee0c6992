/**
 * Spectral envelope by linear prediction (autocorrelation method, Levinson–Durbin). The envelope
 * is evaluated on a frequency grid; its first peaks are the formant estimates.
 */
export function lpc(frame: Float64Array, order: number): Float64Array | null {
  const r = new Float64Array(order + 1);
  for (let lag = 0; lag <= order; lag++) {
    let sum = 0;
    for (let i = lag; i < frame.length; i++) sum += frame[i]! * frame[i - lag]!;
    r[lag] = sum;
  }
  if (r[0]! <= 1e-9) return null;
  r[0]! *= 1 + 1e-9;
  const a = new Float64Array(order + 1);
  a[0] = 1;
  let error = r[0]!;
  for (let i = 1; i <= order; i++) {
    let acc = r[i]!;
    for (let j = 1; j < i; j++) acc += a[j]! * r[i - j]!;
    const k = -acc / error;
    const prev = Float64Array.from(a);
    for (let j = 1; j < i; j++) a[j] = prev[j]! + k * prev[i - j]!;
    a[i] = k;
    error *= 1 - k * k;
    if (error <= 0) return null;
  }
  return a;
}

/** Peaks (Hz) of the LPC envelope between 200 Hz and 4 kHz, lowest first. */
export function envelopePeaks(a: Float64Array, sampleRate: number, points = 256): number[] {
  const maxHz = 4000;
  const mags: number[] = [];
  for (let p = 0; p < points; p++) {
    const w = (2 * Math.PI * (p * maxHz)) / points / sampleRate;
    let re = 0;
    let im = 0;
    for (let k = 0; k < a.length; k++) {
      re += a[k]! * Math.cos(w * k);
      im -= a[k]! * Math.sin(w * k);
    }
    mags.push(1 / Math.max(1e-12, re * re + im * im));
  }
  const peaks: number[] = [];
  for (let p = 1; p < points - 1; p++) {
    const hz = (p * maxHz) / points;
    if (hz >= 200 && mags[p]! > mags[p - 1]! && mags[p]! >= mags[p + 1]!) peaks.push(hz);
  }
  return peaks;
}

/** Spectral centroid (Hz) of a frame by a plain DFT on a coarse grid (up to 8 kHz). */
export function spectralCentroid(frame: Float64Array, sampleRate: number, bins = 128): number {
  let weighted = 0;
  let total = 0;
  const n = frame.length;
  for (let b = 1; b < bins; b++) {
    const hz = (b * sampleRate) / 2 / bins;
    const w = (2 * Math.PI * hz) / sampleRate;
    let re = 0;
    let im = 0;
    for (let i = 0; i < n; i++) {
      re += frame[i]! * Math.cos(w * i);
      im -= frame[i]! * Math.sin(w * i);
    }
    const mag = Math.sqrt(re * re + im * im);
    weighted += hz * mag;
    total += mag;
  }
  return total > 0 ? weighted / total : 0;
}
