/**
 * Linear prediction coefficients of a (windowed) frame: the autocorrelation method with
 * Levinson–Durbin, so the synthesis filter 1/A(z) is always stable. `a[0] = 1`,
 * A(z) = 1 + Σ a[j] z^-j. `whiteNoise` lifts the zero-lag term by that fraction, which keeps the
 * recursion well conditioned on band-limited audio (a resampled piece has nothing near Nyquist).
 * Null for a silent frame. Used for the cloning analysis's formants and the voice colour's
 * envelope (lpc-envelope.ts).
 */
export function lpc(frame: ArrayLike<number>, order: number, whiteNoise = 1e-9): Float64Array | null {
  const r = autocorrelation(frame, order);
  if (r[0]! <= 1e-9) return null;
  r[0]! *= 1 + whiteNoise;
  const a = new Float64Array(order + 1);
  a[0] = 1;
  const prev = new Float64Array(order + 1);
  let error = r[0]!;
  for (let i = 1; i <= order; i++) {
    let acc = r[i]!;
    for (let j = 1; j < i; j++) acc += a[j]! * r[i - j]!;
    const k = -acc / error;
    prev.set(a);
    for (let j = 1; j < i; j++) a[j] = prev[j]! + k * prev[i - j]!;
    a[i] = k;
    error *= 1 - k * k;
    if (error <= 0) return null;
  }
  return a;
}

/**
 * r[lag] = Σ frame[i] × frame[i − lag] for lag 0…order, four lags per pass over the frame (each
 * sample read once for four products): most of the voice colour's envelope fitting.
 */
function autocorrelation(frame: ArrayLike<number>, order: number): Float64Array {
  const r = new Float64Array(order + 1);
  const n = frame.length;
  let lag = 0;
  for (; lag + 3 <= order; lag += 4) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let i = lag; i < Math.min(n, lag + 3); i++) {
      const x = frame[i]!;
      s0 += x * frame[i - lag]!;
      if (i >= lag + 1) s1 += x * frame[i - lag - 1]!;
      if (i >= lag + 2) s2 += x * frame[i - lag - 2]!;
    }
    for (let i = lag + 3; i < n; i++) {
      const x = frame[i]!;
      s0 += x * frame[i - lag]!;
      s1 += x * frame[i - lag - 1]!;
      s2 += x * frame[i - lag - 2]!;
      s3 += x * frame[i - lag - 3]!;
    }
    r[lag] = s0;
    r[lag + 1] = s1;
    r[lag + 2] = s2;
    r[lag + 3] = s3;
  }
  for (; lag <= order; lag++) {
    let sum = 0;
    for (let i = lag; i < n; i++) sum += frame[i]! * frame[i - lag]!;
    r[lag] = sum;
  }
  return r;
}
