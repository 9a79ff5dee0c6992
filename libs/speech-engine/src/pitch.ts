/**
 * YIN fundamental-frequency estimation (de Cheveigné & Kawahara, 2002): difference function,
 * cumulative mean normalisation, absolute threshold, parabolic interpolation. One estimate per
 * frame; `null` for unvoiced frames. Two users: the gateway's analysis of clone samples, and the
 * neural model's voice colour (voice-colour.ts), which measures each piece of the model's speaker.
 */
export interface PitchOptions {
  sampleRate: number;
  minHz?: number;
  maxHz?: number;
  frameSize?: number;
  hop?: number;
  threshold?: number;
  /** Frames (by index) worth estimating; others are reported unvoiced without the work. */
  include?: (frame: number) => boolean;
}

/** Halves the rate (pairwise mean, then every other sample): pitch needs no more than 4 kHz. */
export function decimate2(samples: Float32Array): Float32Array {
  const out = new Float32Array(Math.floor(samples.length / 2));
  for (let i = 0; i < out.length; i++) {
    const a = samples[2 * i]!;
    const b = samples[2 * i + 1]!;
    const prev = samples[2 * i - 1] ?? a;
    out[i] = 0.25 * prev + 0.5 * a + 0.25 * b;
  }
  return out;
}

export function yinTrack(samples: Float32Array, options: PitchOptions): (number | null)[] {
  const { sampleRate } = options;
  const minHz = options.minHz ?? 50;
  const maxHz = options.maxHz ?? 500;
  const frameSize = options.frameSize ?? Math.round(sampleRate * 0.04);
  const hop = options.hop ?? Math.round(sampleRate * 0.01);
  const threshold = options.threshold ?? 0.15;
  const maxLag = Math.min(Math.floor(sampleRate / minHz), frameSize - 1);
  const minLag = Math.max(2, Math.floor(sampleRate / maxHz));
  const window = frameSize - maxLag;
  const frames = samples.length >= frameSize ? Math.floor((samples.length - frameSize) / hop) + 1 : 0;
  const included = Array.from({ length: frames }, (_, f) => !options.include || options.include(f));
  const d = differences(samples, included, hop, window, maxLag);
  const track: (number | null)[] = [];
  const cmnd = new Float64Array(maxLag + 1);
  for (let frame = 0; frame < frames; frame++) {
    if (!included[frame]) {
      track.push(null);
      continue;
    }
    const row = frame * (maxLag + 1);
    // Cumulative mean normalised difference.
    let running = 0;
    cmnd[0] = 1;
    for (let lag = 1; lag <= maxLag; lag++) {
      running += d[row + lag]!;
      cmnd[lag] = running > 0 ? (d[row + lag]! * lag) / running : 1;
    }
    let best = -1;
    for (let lag = minLag; lag <= maxLag; lag++) {
      if (cmnd[lag]! < threshold) {
        while (lag + 1 <= maxLag && cmnd[lag + 1]! < cmnd[lag]!) lag++;
        best = lag;
        break;
      }
    }
    if (best < 0) {
      track.push(null);
      continue;
    }
    const a = cmnd[best - 1] ?? cmnd[best]!;
    const b = cmnd[best]!;
    const c = cmnd[best + 1] ?? cmnd[best]!;
    const denom = a - 2 * b + c;
    const shift = denom !== 0 ? (0.5 * (a - c)) / denom : 0;
    const lag = best + Math.max(-1, Math.min(1, shift));
    track.push(sampleRate / lag);
  }
  return track;
}

/**
 * YIN's difference function of every included frame (frame f starts at f × hop), `maxLag + 1`
 * values per frame: d(τ) = Σ over the frame's `window` samples of (x[i] − x[i + τ])². Frames
 * overlap (the hop is shorter than the window), so for each run of included frames and each lag
 * the squared differences are summed once along the run, and each frame's d(τ) is the difference
 * of the running sum at its end and at its start: about hop ÷ window of the work of summing each
 * frame anew, with the same result up to rounding. This is most of the voice colour's pitch tracking.
 */
function differences(
  samples: Float32Array,
  included: readonly boolean[],
  hop: number,
  window: number,
  maxLag: number,
): Float64Array {
  const width = maxLag + 1;
  const d = new Float64Array(included.length * width);
  for (let first = 0; first < included.length;) {
    if (!included[first]) {
      first++;
      continue;
    }
    let last = first;
    while (last + 1 < included.length && included[last + 1]) last++;
    // The running sum is read only where a frame starts or ends: kept there, not at every sample.
    const count = last - first + 1;
    const marks = [
      ...new Set(Array.from({ length: count }, (_, k) => [(first + k) * hop, (first + k) * hop + window]).flat()),
    ].sort((a, b) => a - b);
    const index = new Map(marks.map((m, k) => [m, k]));
    const starts = Int32Array.from({ length: count }, (_, k) => index.get((first + k) * hop)!);
    const ends = Int32Array.from({ length: count }, (_, k) => index.get((first + k) * hop + window)!);
    const sums = Array.from({ length: 4 }, () => new Float64Array(marks.length));
    const [sums0, sums1, sums2, sums3] = sums as [Float64Array, Float64Array, Float64Array, Float64Array];
    // Four lags per pass (each sample read once for four differences); the sum of each lag is in the same order as alone.
    for (let lag = 1; lag <= maxLag; lag += 4) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      const lanes = Math.min(4, maxLag - lag + 1);
      for (let k = 1; k < marks.length; k++) {
        const end = marks[k]!;
        let i = marks[k - 1]!;
        if (lanes === 4) {
          for (; i < end; i++) {
            const x = samples[i]!;
            const d0 = x - samples[i + lag]!;
            const d1 = x - samples[i + lag + 1]!;
            const d2 = x - samples[i + lag + 2]!;
            const d3 = x - samples[i + lag + 3]!;
            s0 += d0 * d0;
            s1 += d1 * d1;
            s2 += d2 * d2;
            s3 += d3 * d3;
          }
        } else {
          for (; i < end; i++) {
            const x = samples[i]!;
            const d0 = x - samples[i + lag]!;
            s0 += d0 * d0;
            if (lanes > 1) {
              const d1 = x - samples[i + lag + 1]!;
              s1 += d1 * d1;
            }
            if (lanes > 2) {
              const d2 = x - samples[i + lag + 2]!;
              s2 += d2 * d2;
            }
          }
        }
        sums0[k] = s0;
        sums1[k] = s1;
        sums2[k] = s2;
        sums3[k] = s3;
      }
      for (let lane = 0; lane < lanes; lane++) {
        const at = sums[lane]!;
        // Never below zero, which rounding could give a silent stretch after a loud one.
        for (let k = 0; k < count; k++)
          d[(first + k) * width + lag + lane] = Math.max(0, at[ends[k]!]! - at[starts[k]!]!);
      }
    }
    first = last + 1;
  }
  return d;
}
