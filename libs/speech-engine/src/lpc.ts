/**
 * Linear prediction coefficients of a (windowed) frame: the autocorrelation method with
 * Levinson–Durbin, so the synthesis filter 1/A(z) is always stable. `a[0] = 1`,
 * A(z) = 1 + Σ a[j] z^-j. `whiteNoise` lifts the zero-lag term by that fraction, which keeps the
 * recursion well conditioned on band-limited audio (a resampled piece has nothing near Nyquist).
 * Null for a silent frame. Used for the cloning analysis's formants and the voice colour's
 * envelope (lpc-envelope.ts).
 */
export function lpc(frame: ArrayLike<number>, order: number, whiteNoise = 1e-9): Float64Array | null {
  const r = new Float64Array(order + 1);
  for (let lag = 0; lag <= order; lag++) {
    let sum = 0;
    for (let i = lag; i < frame.length; i++) sum += frame[i]! * frame[i - lag]!;
    r[lag] = sum;
  }
  if (r[0]! <= 1e-9) return null;
  r[0]! *= 1 + whiteNoise;
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
