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
